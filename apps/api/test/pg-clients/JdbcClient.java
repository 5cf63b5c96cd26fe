// Drives the PostgreSQL JDBC driver (pgjdbc) against a PostgreSQL wire-protocol server for the
// pg-clients harness (clients.ts). Run as a single-file program, no javac step:
//
//   java -cp postgresql-42.7.x.jar JdbcClient.java MODE ARGS...
//
// The connection comes from the environment: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE
// (optional), PGSSLMODE, PGSSLCERT, PGSSLKEY, PGSSLROOTCERT (optional) and JT_JDBC_PROPS (optional, URL query form, e.g.
// "prepareThreshold=1&binaryTransfer=false"). Prints exactly one JSON document on stdout; an
// unexpected failure prints {"error": {...}} and exits 1.
//
// Modes:
//   metadata SCHEMA TABLE [TYPES]   getSchemas, getTables(SCHEMA, "%", TYPES, default TABLE,VIEW),
//                                    getColumns and getPrimaryKeys of SCHEMA.TABLE
//   query    SQL                     rows by getString, plus getObject's class names
//   prepared SQL N [PARAM...]        one PreparedStatement executed N times; a PARAM is TYPE:VALUE
//                                    (TYPE int|long|short|text|numeric|double|float|bool|date|
//                                    timestamp|time|null) and "{i}" in VALUE is the iteration
//                                    index (0-based)
//   cancel   SQL MS                  Statement.cancel() from another thread after MS ms
//   timeout  SQL SECONDS             Statement.setQueryTimeout(SECONDS)

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public class JdbcClient {
  // ------------------------------------------------------------------ tiny JSON writer
  static String q(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
        }
      }
    }
    return b.append('"').toString();
  }

  /** A JSON object built from key/value pairs whose values are already JSON. */
  static final class Obj {
    private final StringBuilder b = new StringBuilder("{");

    Obj raw(String k, String json) {
      if (b.length() > 1) b.append(',');
      b.append(q(k)).append(':').append(json);
      return this;
    }

    Obj str(String k, String v) { return raw(k, q(v)); }

    Obj num(String k, long v) { return raw(k, Long.toString(v)); }

    Obj num(String k, double v) { return raw(k, String.format(java.util.Locale.ROOT, "%.3f", v)); }

    Obj bool(String k, boolean v) { return raw(k, Boolean.toString(v)); }

    @Override
    public String toString() { return b + "}"; }
  }

  static String arr(List<String> jsonItems) { return "[" + String.join(",", jsonItems) + "]"; }

  static String strArr(List<String> items) {
    List<String> out = new ArrayList<>();
    for (String s : items) out.add(q(s));
    return arr(out);
  }

  // ------------------------------------------------------------------ connection
  static String env(String k, String dflt) {
    String v = System.getenv(k);
    return v == null || v.isEmpty() ? dflt : v;
  }

  static Connection connect() throws SQLException {
    String host = env("PGHOST", "127.0.0.1");
    if (host.contains(":") && !host.startsWith("[")) host = "[" + host + "]";
    String url = "jdbc:postgresql://" + host + ":" + env("PGPORT", "5432") + "/" + env("PGDATABASE", "");
    List<String> query = new ArrayList<>();
    String sslmode = env("PGSSLMODE", "");
    if (!sslmode.isEmpty()) query.add("sslmode=" + sslmode);
    String extra = env("JT_JDBC_PROPS", "");
    if (!extra.isEmpty()) query.add(extra);
    if (!query.isEmpty()) url += "?" + String.join("&", query);
    Properties p = new Properties();
    p.setProperty("user", env("PGUSER", ""));
    p.setProperty("password", env("PGPASSWORD", ""));
    p.setProperty("ApplicationName", "junction-test-jdbc");
    p.setProperty("connectTimeout", "10");
    // libpq's certificate files, as clients.ts points them (away from ~/.postgresql)
    String[][] files = {{"PGSSLCERT", "sslcert"}, {"PGSSLKEY", "sslkey"}, {"PGSSLROOTCERT", "sslrootcert"}};
    for (String[] f : files) if (!env(f[0], "").isEmpty()) p.setProperty(f[1], env(f[0], ""));
    return DriverManager.getConnection(url, p);
  }

  // ------------------------------------------------------------------ result sets
  /** Every row as an object of column label to getString, in column order. */
  static String rowsAsObjects(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    List<String> rows = new ArrayList<>();
    while (rs.next()) {
      Obj o = new Obj();
      for (int i = 1; i <= md.getColumnCount(); i++) o.str(md.getColumnLabel(i), rs.getString(i));
      rows.add(o.toString());
    }
    rs.close();
    return arr(rows);
  }

  static String columnsOf(ResultSetMetaData md) throws SQLException {
    List<String> cols = new ArrayList<>();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      cols.add(new Obj()
          .str("name", md.getColumnName(i))
          .str("label", md.getColumnLabel(i))
          .num("type", md.getColumnType(i))
          .str("typeName", md.getColumnTypeName(i))
          .str("className", md.getColumnClassName(i))
          .num("precision", md.getPrecision(i))
          .num("scale", md.getScale(i))
          .num("nullable", md.isNullable(i))
          .toString());
    }
    return arr(cols);
  }

  /** rows (getString per column) and classes (getObject's class, null for SQL NULL). */
  static Obj readRows(ResultSet rs, Obj into, boolean withClasses) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int n = md.getColumnCount();
    List<String> rows = new ArrayList<>();
    List<String> classes = new ArrayList<>();
    while (rs.next()) {
      List<String> row = new ArrayList<>();
      List<String> cls = new ArrayList<>();
      for (int i = 1; i <= n; i++) {
        row.add(rs.getString(i));
        if (withClasses) {
          Object o = rs.getObject(i);
          cls.add(o == null ? null : o.getClass().getName());
        }
      }
      rows.add(strArr(row));
      if (withClasses) classes.add(strArr(cls));
    }
    into.raw("rows", arr(rows));
    if (withClasses) into.raw("classes", arr(classes));
    return into;
  }

  static String sqlError(SQLException e, long startedNanos) {
    return new Obj()
        .str("sqlState", e.getSQLState())
        .str("message", e.getMessage())
        .str("class", e.getClass().getName())
        .num("elapsedMs", (System.nanoTime() - startedNanos) / 1e6)
        .toString();
  }

  static boolean stillUsable(Connection c) {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      return rs.next() && rs.getInt(1) == 1;
    } catch (SQLException e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ modes
  static String metadata(String[] a) throws SQLException {
    String schema = a[1], table = a[2];
    String[] types = a.length > 3 ? a[3].split(",") : new String[] {"TABLE", "VIEW"};
    try (Connection c = connect()) {
      DatabaseMetaData md = c.getMetaData();
      return new Obj()
          .str("product", md.getDatabaseProductName())
          .str("productVersion", md.getDatabaseProductVersion())
          .str("driverVersion", md.getDriverVersion())
          .raw("schemas", rowsAsObjects(md.getSchemas()))
          .raw("tables", rowsAsObjects(md.getTables(null, schema, "%", types)))
          .raw("columns", rowsAsObjects(md.getColumns(null, schema, table, "%")))
          .raw("primaryKeys", rowsAsObjects(md.getPrimaryKeys(null, schema, table)))
          .toString();
    }
  }

  static String query(String[] a) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      long t0 = System.nanoTime();
      boolean hasRs = s.execute(a[1]);
      Obj out = new Obj();
      if (hasRs) {
        try (ResultSet rs = s.getResultSet()) {
          out.raw("columns", columnsOf(rs.getMetaData()));
          readRows(rs, out, true);
        }
      } else {
        out.num("updateCount", s.getUpdateCount());
      }
      return out.num("ms", (System.nanoTime() - t0) / 1e6).toString();
    }
  }

  static void bind(PreparedStatement ps, int idx, String spec, int iteration) throws SQLException {
    int colon = spec.indexOf(':');
    if (colon < 0) throw new IllegalArgumentException("parameter is not TYPE:VALUE: " + spec);
    String type = spec.substring(0, colon);
    String v = spec.substring(colon + 1).replace("{i}", Integer.toString(iteration));
    switch (type) {
      case "int" -> ps.setInt(idx, Integer.parseInt(v));
      case "long" -> ps.setLong(idx, Long.parseLong(v));
      case "short" -> ps.setShort(idx, Short.parseShort(v));
      case "text" -> ps.setString(idx, v);
      case "numeric" -> ps.setBigDecimal(idx, new BigDecimal(v));
      case "double" -> ps.setDouble(idx, Double.parseDouble(v));
      case "float" -> ps.setFloat(idx, Float.parseFloat(v));
      case "bool" -> ps.setBoolean(idx, Boolean.parseBoolean(v));
      case "date" -> ps.setObject(idx, java.time.LocalDate.parse(v));
      case "timestamp" -> ps.setObject(idx, java.time.LocalDateTime.parse(v));
      case "time" -> ps.setObject(idx, java.time.LocalTime.parse(v));
      case "null" -> ps.setNull(idx, Types.VARCHAR);
      default -> throw new IllegalArgumentException("unknown parameter type " + type);
    }
  }

  static String prepared(String[] a) throws SQLException {
    String sql = a[1];
    int n = Integer.parseInt(a[2]);
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      List<String> results = new ArrayList<>();
      String columns = "[]";
      long t0 = System.nanoTime();
      double firstMs = 0;
      for (int it = 0; it < n; it++) {
        for (int p = 3; p < a.length; p++) bind(ps, p - 2, a[p], it);
        long e0 = System.nanoTime();
        if (ps.execute()) {
          try (ResultSet rs = ps.getResultSet()) {
            if (it == 0) columns = columnsOf(rs.getMetaData());
            Obj one = readRows(rs, new Obj(), false);
            String s = one.toString();
            results.add(s.substring("{\"rows\":".length(), s.length() - 1));
          }
        } else {
          results.add(Integer.toString(ps.getUpdateCount()));
        }
        if (it == 0) firstMs = (System.nanoTime() - e0) / 1e6;
      }
      double totalMs = (System.nanoTime() - t0) / 1e6;
      boolean serverPrepared = ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare();
      return new Obj()
          .raw("columns", columns)
          .raw("results", arr(results))
          .num("executions", n)
          .num("firstMs", firstMs)
          .num("totalMs", totalMs)
          .num("avgMs", n > 0 ? totalMs / n : 0)
          .bool("serverPrepared", serverPrepared)
          .toString();
    }
  }

  static String cancel(String[] a) throws Exception {
    long afterMs = Long.parseLong(a[2]);
    try (Connection c = connect(); Statement s = c.createStatement()) {
      Thread canceller = new Thread(() -> {
        try {
          Thread.sleep(afterMs);
          s.cancel();
        } catch (InterruptedException ignored) {
          // the statement finished first
        } catch (SQLException e) {
          System.err.println("cancel failed: " + e);
        }
      });
      long t0 = System.nanoTime();
      canceller.start();
      Obj out = new Obj();
      try {
        s.execute(a[1]);
        out.bool("completed", true).raw("sqlState", "null").num("elapsedMs", (System.nanoTime() - t0) / 1e6);
      } catch (SQLException e) {
        out = new Obj().bool("completed", false).raw("error", sqlError(e, t0)).str("sqlState", e.getSQLState());
      } finally {
        canceller.interrupt();
        canceller.join();
      }
      return out.bool("usableAfter", stillUsable(c)).toString();
    }
  }

  static String timeout(String[] a) throws SQLException {
    int seconds = Integer.parseInt(a[2]);
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.setQueryTimeout(seconds);
      long t0 = System.nanoTime();
      Obj out;
      try {
        s.execute(a[1]);
        out = new Obj().bool("completed", true).raw("sqlState", "null").num("elapsedMs", (System.nanoTime() - t0) / 1e6);
      } catch (SQLException e) {
        out = new Obj().bool("completed", false).raw("error", sqlError(e, t0)).str("sqlState", e.getSQLState());
      }
      return out.bool("usableAfter", stillUsable(c)).toString();
    }
  }

  public static void main(String[] a) {
    long t0 = System.nanoTime();
    if (a.length < 2) {
      System.err.println("usage: JdbcClient.java metadata|query|prepared|cancel|timeout ARGS...");
      System.exit(2);
    }
    String out;
    int code = 0;
    try {
      out = switch (a[0]) {
        case "metadata" -> metadata(a);
        case "query" -> query(a);
        case "prepared" -> prepared(a);
        case "cancel" -> cancel(a);
        case "timeout" -> timeout(a);
        default -> throw new IllegalArgumentException("unknown mode " + a[0]);
      };
    } catch (SQLException e) {
      out = new Obj().raw("error", sqlError(e, t0)).toString();
      code = 1;
    } catch (Exception e) {
      out = new Obj().raw("error", new Obj().str("class", e.getClass().getName()).str("message", e.getMessage()).toString()).toString();
      code = 1;
    }
    // JVM uptime includes compiling this file: the cost of one harness call before the driver runs
    String timing = new Obj()
        .num("jvmUptimeMs", ManagementFactory.getRuntimeMXBean().getUptime())
        .num("mainMs", (System.nanoTime() - t0) / 1e6)
        .toString();
    System.out.println(out.substring(0, out.length() - 1) + ",\"timing\":" + timing + "}");
    System.out.flush();
    System.exit(code);
  }
}
