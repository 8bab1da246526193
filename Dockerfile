# The service as one executable (docs/deployment.md). The build stage runs `npm run build:binary`, the
# same build tests/binary.test.ts runs and checks; the final stage holds only that file, on a distroless
# glibc base, as a non-root user. There is no Docker engine where this project is developed: this image
# has not been built there. tests/dockerfile.test.ts lints this file and checks its structure.

# Debian 12, the same glibc as the final stage.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Every dependency: Bun, the compiler, is a devDependency.
RUN npm ci --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
COPY data ./data
# An empty directory, copied below with its owner set, where the service keeps its store and caches.
RUN npm run build:binary && mkdir -p /out/data

# The binary needs only glibc (ldd: libc, libpthread, libdl, libm). distroless/cc has glibc and the C/C++
# runtime libraries a later Bun might link, no shell and no package manager, and a `nonroot` user (65532).
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/destination-map /app/destination-map
COPY --from=build --chown=65532:65532 /out/ /
WORKDIR /data
# Serves the built-in demo unless BUNDLE_PATH names a bundle, e.g. one mounted in /bundle.
ENV PORT=8787 HOST=0.0.0.0 DATA_DIR=/data
USER 65532:65532
VOLUME ["/bundle"]
EXPOSE 8787
# No curl in the image: the binary asks its own /healthz. No --start-period: dockerfilelint 1.8.0 rejects
# any option with a hyphen in its name. Three failures 30 s apart leave a first full load of a large
# bundle (which holds the event loop) about 90 s before the container is marked unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --retries=3 CMD ["/app/destination-map", "--healthcheck"]
ENTRYPOINT ["/app/destination-map"]
