# Junction: the studio (API + built web app). Used by docker-compose.yml for both the
# `junction` service and the one-shot TPC-H `loader`.
# Node 24, the current LTS: what `npm start` runs on outside Docker too (the `node` devDependency)
FROM node:24-bookworm-slim

# a native module without a prebuilt binary for this platform compiles
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN npm ci && npm run build -w @junction/web

ENV HOST=0.0.0.0 PORT=8080 JUNCTION_DATA_DIR=/data
EXPOSE 8080 5433
VOLUME ["/data"]
CMD ["node", "scripts/start.mjs"]
