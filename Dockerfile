# The daemon and its managed headless Chromium in one image. See docker-compose.yml.
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-liberation \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY extension ./extension
RUN pip install --no-cache-dir .

ENV TABPILOT_EXTENSION_DIR=/app/extension \
    TABPILOT_STATE_DIR=/var/lib/tabpilot \
    TABPILOT_PORT=7878

CMD ["tabpilot", "serve", "--browser"]
