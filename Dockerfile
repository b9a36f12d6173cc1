# The daemon and its managed headless Chromium in one image. See docker-compose.yml.

# The wheel, built as `python -m build` builds it: it carries the extension (setup.py).
FROM python:3.11-slim-bookworm AS wheel
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY server ./server
COPY extension ./extension
RUN pip install --no-cache-dir build && python -m build --wheel --outdir /dist .

FROM python:3.11-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-liberation \
    && rm -rf /var/lib/apt/lists/*

# Installed as any user installs it: the image holds no checkout.
COPY --from=wheel /dist /tmp/dist
RUN pip install --no-cache-dir /tmp/dist/*.whl && rm -rf /tmp/dist

ENV TABPILOT_STATE_DIR=/var/lib/tabpilot \
    TABPILOT_PORT=7878

CMD ["tabpilot", "serve", "--browser"]
