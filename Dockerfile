# Junction: the studio (API + built web app). Used by docker-compose.yml for both the
# `junction` service and the one-shot TPC-H `loader`.
FROM node:20-bookworm-slim

# better-sqlite3 compiles when no prebuilt binary matches
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN npm ci && npm run build -w @junction/web

ENV HOST=0.0.0.0 PORT=8080 JUNCTION_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
CMD ["node", "scripts/start.mjs"]
