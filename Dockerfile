# Postern: multi-stage build from the official Swift bookworm image to a slim runtime.
# The build steps mirror scripts/bootstrap and `make run`, which the tests exercise.

FROM swift:6.3-bookworm AS build
WORKDIR /src
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl-dev libargon2-dev libscrypt-dev libsqlite3-dev libpq-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
COPY Package.swift ./
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
# Compiled into the binary by the EmbedResources plugin (config/postern.env too, for `serve --help`); nothing else
# is needed beside it at run time.
COPY migrations ./migrations
COPY config ./config
RUN swift build -c release --product postern --static-swift-stdlib \
 && install -D .build/release/postern /out/postern

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libargon2-1 libscrypt0 libsqlite3-0 libpq5 libssl3 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin postern \
 && mkdir -p /data && chown postern:postern /data
WORKDIR /app
COPY --from=build /out/postern /usr/local/bin/postern
COPY config ./config
ENV POSTERN_HOST=0.0.0.0 \
    POSTERN_PORT=8080 \
    POSTERN_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
USER postern
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/postern"]
CMD ["serve"]
