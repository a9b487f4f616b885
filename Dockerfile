# prhub: the chat bot and weekly scheduler (`prhub serve`), one process per container.
# Build: docker build -t prhub .   Run: docker run -v $PWD/config.yaml:/etc/prhub/config.yaml:ro \
#   -e SLACK_BOT_TOKEN -e SLACK_APP_TOKEN -e FEISHU_APP_ID -e FEISHU_APP_SECRET \
#   -e GITHUB_TOKEN -e PRHUB_DATABASE_URL -p 8080:8080 prhub
# (Slack Socket Mode and the Feishu long connection: no public URL. Behind one, HTTP mode takes
# SLACK_SIGNING_SECRET instead of SLACK_APP_TOKEN, Feishu FEISHU_VERIFICATION_TOKEN and FEISHU_ENCRYPT_KEY.)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# fonts-noto-cjk: Chinese text in charts and PDF reports; Pango: WeasyPrint (PDF);
# tzdata: IANA zones for schedules and week windows
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk libpango-1.0-0 libpangoft2-1.0-0 tzdata \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 prhub \
    && useradd --system --uid 10001 --gid prhub --home-dir /var/lib/prhub --create-home --shell /usr/sbin/nologin prhub

WORKDIR /src
COPY pyproject.toml README.md ./
COPY chatbot ./chatbot
COPY adapters ./adapters
COPY scheduler ./scheduler
COPY prhub ./prhub
# the same install step as the README
RUN pip install . && rm -rf /src

USER prhub
WORKDIR /var/lib/prhub
# default store: a SQLite file in the home volume; set PRHUB_DATABASE_URL for PostgreSQL
ENV XDG_DATA_HOME=/var/lib/prhub/data
VOLUME ["/var/lib/prhub"]
EXPOSE 8080

# /healthz: 200 when the store answers and the scheduler runs (503 otherwise)
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status == 200 else 1)"]

# SIGTERM: the server stops, in-flight deliveries finish or stay 'sending' for reconciliation
STOPSIGNAL SIGTERM
CMD ["prhub", "serve", "--config", "/etc/prhub/config.yaml"]
