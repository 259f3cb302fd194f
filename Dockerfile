# syntax=docker/dockerfile:1
# Build stage: install everything, compile TypeScript to dist/.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime stage: production dependencies and the compiled code only, as an unprivileged user.
FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The image's own Node runs the service: the Node binaries the lock file lists as optional
# dependencies for bare machines (and pg's Cloudflare socket) are left out.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY scripts ./scripts
USER node
# 3000: the API; 9464: Prometheus metrics (METRICS_PORT).
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# As `npm run start:prod`: a young generation of at most 2 × 8 MB keeps the resident memory under
# load near 200 MB on a host with memory to spare (see docs/BENCHMARKS.md).
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=160", "dist/apps/api/src/main.js"]
