#!/usr/bin/env bash
# Makes the test servers Junction's tests talk to exist and answer:
#   PostgreSQL  TEST_PG_URL     default postgres://junction:junction@127.0.0.1:5432/junction_test
#   MariaDB     TEST_MYSQL_URL  default mysql://junction:junction@127.0.0.1:3306/junction_test
#   Chromium    /usr/bin/chromium (Playwright end-to-end tests)
#   PostgreSQL clients for apps/api/test/pg-clients: psql, pgbench, psycopg 3 (python3-psycopg),
#               a JDK, and the pgjdbc jar (Maven Central) in node_modules/.cache/junction/pgjdbc
# Idempotent: run it as often as you like. When a URL points at this machine's default port
# the script installs (root on Debian only), starts and provisions that server; when it points
# elsewhere the script only checks that the server answers.
set -uo pipefail

DEFAULT_PG_URL='postgres://junction:junction@127.0.0.1:5432/junction_test'
DEFAULT_MYSQL_URL='mysql://junction:junction@127.0.0.1:3306/junction_test'
PG_URL="${TEST_PG_URL:-$DEFAULT_PG_URL}"
MYSQL_URL="${TEST_MYSQL_URL:-$DEFAULT_MYSQL_URL}"
SELF='scripts/services.sh'

say() { printf '[services] %s\n' "$*" >&2; }

# Prints shell assignments for the parts of a database URL (quoted for eval).
parse_url() {
  local prefix="$1" url="$2" default_port="$3"
  local rest userinfo hostport path user pass host port db
  rest="${url#*://}"
  if [[ "$rest" == *@* ]]; then userinfo="${rest%@*}"; rest="${rest##*@}"; else userinfo=''; fi
  hostport="${rest%%/*}"
  if [[ "$rest" == */* ]]; then path="${rest#*/}"; else path=''; fi
  db="${path%%\?*}"
  user="${userinfo%%:*}"
  if [[ "$userinfo" == *:* ]]; then pass="${userinfo#*:}"; else pass=''; fi
  if [[ "$hostport" == \[*\]* ]]; then
    host="${hostport%%]*}"; host="${host#[}"; port="${hostport##*]}"; port="${port#:}"
  else
    host="${hostport%%:*}"
    if [[ "$hostport" == *:* ]]; then port="${hostport##*:}"; else port=''; fi
  fi
  [[ -z "$port" ]] && port="$default_port"
  # URL-decode user and password (percent-encoded characters only).
  user="$(printf '%b' "${user//%/\\x}")"
  pass="$(printf '%b' "${pass//%/\\x}")"
  printf '%s_USER=%q; %s_PASS=%q; %s_HOST=%q; %s_PORT=%q; %s_DB=%q\n' \
    "$prefix" "$user" "$prefix" "$pass" "$prefix" "$host" "$prefix" "$port" "$prefix" "$db"
}

eval "$(parse_url PG "$PG_URL" 5432)"
eval "$(parse_url MY "$MYSQL_URL" 3306)"

is_local() { [[ "$1" == 127.0.0.1 || "$1" == localhost || "$1" == ::1 ]]; }
MANAGE_PG=0
MANAGE_MY=0
if is_local "$PG_HOST" && [[ "$PG_PORT" == 5432 ]]; then MANAGE_PG=1; fi
if is_local "$MY_HOST" && [[ "$MY_PORT" == 3306 ]]; then MANAGE_MY=1; fi

IS_ROOT=0
[[ "$(id -u)" == 0 ]] && IS_ROOT=1
IS_DEBIAN=0
[[ -f /etc/debian_version ]] && command -v apt-get >/dev/null 2>&1 && IS_DEBIAN=1

# ---------------------------------------------------------------- packages
pg_installed() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null && command -v pg_ctlcluster >/dev/null 2>&1; }
mariadb_installed() { [[ -x /usr/sbin/mariadbd || -x /usr/sbin/mysqld ]]; }
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
if [[ $MANAGE_PG == 1 ]] && ! pg_installed; then missing+=(postgresql); fi
if [[ $MANAGE_MY == 1 ]] && ! mariadb_installed; then missing+=(mariadb-server); fi
if [[ ! -x /usr/bin/chromium ]]; then missing+=(chromium); fi
if [[ $IS_DEBIAN == 1 ]] && ! pkg_installed fonts-liberation; then missing+=(fonts-liberation); fi
# The PostgreSQL client harness (apps/api/test/pg-clients): psql and pgbench, psycopg 3 for
# /usr/bin/python3, and a JDK (a JRE cannot run a single-file Java program) for pgjdbc.
if [[ $IS_DEBIAN == 1 ]]; then
  if [[ ! -x /usr/bin/psql || ! -x /usr/bin/pgbench ]]; then missing+=(postgresql-client); fi
  if ! pkg_installed python3-psycopg; then missing+=(python3-psycopg); fi
  if [[ ! -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]] && ! command -v javac >/dev/null 2>&1; then
    missing+=(default-jdk-headless)
  fi
fi

if ((${#missing[@]} > 0)); then
  if [[ $IS_ROOT == 1 && $IS_DEBIAN == 1 ]]; then
    say "installing: ${missing[*]}"
    # C.UTF-8 so a cluster created by the postgresql package's postinst gets UTF8 + C collation.
    export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8
    apt-get update -qq >&2 || say 'apt-get update failed (continuing with the cached package lists)'
    apt-get install -y -qq "${missing[@]}" >&2 || say "apt-get install ${missing[*]} failed"
  else
    say "missing: ${missing[*]} (install them yourself: this script installs only as root on Debian)"
  fi
fi

# ---------------------------------------------------------------- PostgreSQL
tcp_open() { (exec 3<>"/dev/tcp/$1/$2") >/dev/null 2>&1; }

pg_answers() {
  # Without a client (a remote server, no local install) an open port is the best we can check.
  if ! command -v psql >/dev/null 2>&1; then tcp_open "$PG_HOST" "$PG_PORT"; return; fi
  PGPASSWORD="$PG_PASS" PGCONNECT_TIMEOUT=3 psql -X -q -At -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" \
    -c 'select 1' >/dev/null 2>&1
}

as_postgres() { (cd / && runuser -u postgres -- "$@"); }

start_pg() {
  local line ver name port status
  if ! pg_installed; then return 1; fi
  if [[ -z "$(pg_lsclusters -h 2>/dev/null)" ]]; then
    ver="$(basename "$(dirname "$(dirname "$(compgen -G '/usr/lib/postgresql/*/bin/postgres' | sort -V | tail -1)")")")"
    say "creating PostgreSQL cluster $ver/main (C.UTF-8)"
    pg_createcluster --locale=C.UTF-8 --encoding=UTF8 "$ver" main -p "$PG_PORT" >&2 || return 1
  fi
  # Start the cluster that owns the port; fall back to the first one.
  line="$(pg_lsclusters -h | awk -v p="$PG_PORT" '$3 == p' | head -1)"
  [[ -z "$line" ]] && line="$(pg_lsclusters -h | head -1)"
  read -r ver name port status _ <<<"$line"
  if [[ "$status" != online* ]]; then
    say "starting PostgreSQL $ver/$name on port $port"
    pg_ctlcluster "$ver" "$name" start >&2 || return 1
  fi
  for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 -p "$PG_PORT" && return 0
    sleep 1
  done
  return 1
}

provision_pg() {
  local role_sql db_exists
  # Identifiers/literals come from TEST_PG_URL; quote them the way PostgreSQL does.
  role_sql="DO \$\$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${PG_USER//\'/\'\'}') THEN
      CREATE ROLE \"${PG_USER//\"/\"\"}\" LOGIN SUPERUSER;
    END IF;
  END \$\$;
  ALTER ROLE \"${PG_USER//\"/\"\"}\" WITH LOGIN SUPERUSER CREATEDB PASSWORD '${PG_PASS//\'/\'\'}';"
  as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres -c "$role_sql" >&2 || return 1
  db_exists="$(as_postgres psql -X -At -p "$PG_PORT" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '${PG_DB//\'/\'\'}'")"
  if [[ "$db_exists" != 1 ]]; then
    say "creating PostgreSQL database $PG_DB"
    as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres -c \
      "CREATE DATABASE \"${PG_DB//\"/\"\"}\" OWNER \"${PG_USER//\"/\"\"}\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'" >&2 ||
      return 1
  fi
}

if [[ $MANAGE_PG == 1 ]]; then
  if ! pg_answers; then
    if [[ $IS_ROOT == 1 ]]; then
      start_pg && provision_pg || say 'could not start or provision PostgreSQL'
    else
      say 'PostgreSQL does not answer and this script is not root: start it and create the role yourself'
    fi
  fi
fi

# ---------------------------------------------------------------- MariaDB
MY_CONF_DIR=/etc/mysql/mariadb.conf.d
MY_CONF="$MY_CONF_DIR/60-junction.cnf"

my_answers() {
  if ! command -v mysql >/dev/null 2>&1; then tcp_open "$MY_HOST" "$MY_PORT"; return; fi
  MYSQL_PWD="$MY_PASS" mysql --connect-timeout=3 -h "$MY_HOST" -P "$MY_PORT" -u "$MY_USER" -D "$MY_DB" \
    -e 'select 1' >/dev/null 2>&1
}

my_root() { mysql --protocol=socket -uroot "$@"; }

write_my_conf() {
  [[ -d "$MY_CONF_DIR" ]] || return 0
  local want
  # local_infile: LOAD DATA LOCAL is the MySQL connector's bulk path. The flush setting only
  # trades crash durability of the last second for load speed, which a test server can afford.
  want='# Written by Junction scripts/services.sh
[mysqld]
local_infile = 1
innodb_flush_log_at_trx_commit = 2
innodb_buffer_pool_size = 512M
max_connections = 500
'
  if [[ ! -f "$MY_CONF" ]] || [[ "$(cat "$MY_CONF")" != "${want%$'\n'}" ]]; then
    printf '%s' "$want" >"$MY_CONF"
    say "wrote $MY_CONF"
  fi
}

start_mariadb() {
  mariadb_installed || return 1
  if ! mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1; then
    say 'starting MariaDB'
    service mariadb start >&2 || service mysql start >&2 || return 1
  fi
  for _ in $(seq 1 60); do
    mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}

provision_mariadb() {
  local u="${MY_USER//\'/\'\'}" p="${MY_PASS//\'/\'\'}" d="${MY_DB//\`/\`\`}"
  my_root -e "
    CREATE USER IF NOT EXISTS '$u'@'localhost' IDENTIFIED BY '$p';
    CREATE USER IF NOT EXISTS '$u'@'127.0.0.1' IDENTIFIED BY '$p';
    ALTER USER '$u'@'localhost' IDENTIFIED BY '$p';
    ALTER USER '$u'@'127.0.0.1' IDENTIFIED BY '$p';
    GRANT ALL PRIVILEGES ON *.* TO '$u'@'localhost' WITH GRANT OPTION;
    GRANT ALL PRIVILEGES ON *.* TO '$u'@'127.0.0.1' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS \`$d\`;
    SET GLOBAL local_infile = 1;
    SET GLOBAL innodb_flush_log_at_trx_commit = 2;
    FLUSH PRIVILEGES;" >&2
}

if [[ $MANAGE_MY == 1 ]]; then
  if [[ $IS_ROOT == 1 ]]; then
    write_my_conf
    if start_mariadb; then
      # Cheap and idempotent, so always: keeps users, grants and local_infile right.
      provision_mariadb || say 'could not provision MariaDB users'
    else
      say 'could not start MariaDB'
    fi
  elif ! my_answers; then
    say 'MariaDB does not answer and this script is not root: start it and create the user yourself'
  fi
fi

# ---------------------------------------------------------------- pgjdbc (client harness)
# JdbcClient.java runs on the PostgreSQL JDBC driver pinned (version and sha1) in pgjdbc.properties,
# from Maven Central into the git-ignored cache, where the tests look (clients.ts's ensurePgJdbcJar
# downloads it the same way when it is missing, after an `npm ci` say).
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PGJDBC_PROPS="$REPO_ROOT/apps/api/test/pg-clients/pgjdbc.properties"
PGJDBC_JAR=''

fetch_pgjdbc() {
  local version sha1 dir url published actual
  version="$(sed -n 's/^version=\([^[:space:]]*\).*/\1/p' "$PGJDBC_PROPS")"
  sha1="$(sed -n 's/^sha1=\([0-9a-f]*\).*/\1/p' "$PGJDBC_PROPS")"
  [[ -n "$version" && -n "$sha1" ]] || { say "no version or sha1 in $PGJDBC_PROPS"; return 1; }
  dir="$REPO_ROOT/node_modules/.cache/junction/pgjdbc"
  PGJDBC_JAR="$dir/postgresql-$version.jar"
  if [[ -f "$PGJDBC_JAR" && "$(sha1sum "$PGJDBC_JAR" | cut -d' ' -f1)" == "$sha1" ]]; then return 0; fi
  if ! command -v curl >/dev/null 2>&1; then say 'curl is missing: pgjdbc not downloaded'; return 1; fi
  url="https://repo1.maven.org/maven2/org/postgresql/postgresql/$version/postgresql-$version.jar"
  say "downloading pgjdbc $version from Maven Central"
  mkdir -p "$dir"
  curl -fsSL --retry 3 --max-time 180 -o "$PGJDBC_JAR.tmp" "$url" || { rm -f "$PGJDBC_JAR.tmp"; return 1; }
  published="$(curl -fsSL --retry 3 --max-time 60 "$url.sha1" | cut -c1-40)" || { rm -f "$PGJDBC_JAR.tmp"; return 1; }
  actual="$(sha1sum "$PGJDBC_JAR.tmp" | cut -d' ' -f1)"
  if [[ "$actual" != "$published" || "$actual" != "$sha1" ]]; then
    say "pgjdbc $version: sha1 $actual, Maven Central's .sha1 says $published, pgjdbc.properties pins $sha1"
    rm -f "$PGJDBC_JAR.tmp"
    return 1
  fi
  mv -f "$PGJDBC_JAR.tmp" "$PGJDBC_JAR"
}

fetch_pgjdbc || say 'could not download pgjdbc (the JDBC client tests download it themselves, or fail)'

# ---------------------------------------------------------------- final check
failed=0
if ! pg_answers; then
  say "ERROR: PostgreSQL at TEST_PG_URL (${PG_USER}@${PG_HOST}:${PG_PORT}/${PG_DB}) does not answer."
  say "       Set TEST_PG_URL to a reachable server, or run $SELF as root to install and start a local one."
  failed=1
else
  say "PostgreSQL ok: ${PG_HOST}:${PG_PORT}/${PG_DB}"
fi
if ! my_answers; then
  say "ERROR: MariaDB/MySQL at TEST_MYSQL_URL (${MY_USER}@${MY_HOST}:${MY_PORT}/${MY_DB}) does not answer."
  say "       Set TEST_MYSQL_URL to a reachable server, or run $SELF as root to install and start a local one."
  failed=1
else
  say "MariaDB ok: ${MY_HOST}:${MY_PORT}/${MY_DB}"
fi
if [[ ! -x /usr/bin/chromium ]]; then
  say 'WARNING: /usr/bin/chromium is missing: the Playwright end-to-end tests cannot run.'
fi
if ! /usr/bin/python3 -I -c 'import psycopg' >/dev/null 2>&1; then
  say 'WARNING: /usr/bin/python3 cannot import psycopg (Debian python3-psycopg): the psycopg client tests fail.'
fi
if [[ -z "$PGJDBC_JAR" || ! -f "$PGJDBC_JAR" ]]; then
  say 'WARNING: the pgjdbc jar is not in node_modules/.cache/junction/pgjdbc: the JDBC client tests must download it.'
fi
if [[ -z "${TEST_MSSQL_URL:-}" ]]; then
  say 'NOTICE: TEST_MSSQL_URL is unset: SQL Server live tests are skipped (its dialect and type mapping are still tested offline).'
else
  say 'SQL Server: TEST_MSSQL_URL is set; its live tests will run.'
fi
exit "$failed"
