# One image for the three apps; docker-compose picks the app with APP.
FROM node:20-bookworm-slim AS build
WORKDIR /srv
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /srv
COPY --from=build /srv /srv
USER node
ARG APP=api-gateway
ENV APP=${APP}
CMD ["sh", "-c", "exec node --enable-source-maps apps/$APP/dist/main.js"]
