# The service on Node 24, which runs the TypeScript sources directly (type stripping): no build step.
# Only production dependencies are installed; the demo bundle is baked in and a bundle of your own
# can be mounted at /content and named with BUNDLE_PATH.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8787 HOST=0.0.0.0
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY data ./data
USER node
VOLUME ["/content"]
EXPOSE 8787
CMD ["node", "src/serve/node.ts"]
