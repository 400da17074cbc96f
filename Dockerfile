# The platform image: one image, three roles (docker-compose.yml picks one with its command):
#
#   web      gunicorn serving Django; whitenoise serves the static files collected at build time
#   worker   a Celery worker that plays matches; bots run in containers of the host's engine
#   beat     Celery beat (exactly one per site)
#   migrate  one-shot: database migrations and the house bots
#
#   docker build -t kozyr-platform .
#
# The worker starts each bot with the docker CLI through the host's engine (the socket is mounted into
# the worker container only). Whoever controls that socket is root on that host: see docs/operations.md,
# "The worker and the Docker engine", before running workers beside anything else.
# The bot runtime image is a different image, built from sandbox/image/ on every worker host.

# The base images are build arguments, defaulting to the upstream ones; deploy/build-local-images.sh builds
# local ones from Debian's packages where no registry is reachable.
ARG DOCKER_CLI_IMAGE=docker:28-cli
ARG PYTHON_IMAGE=python:3.11-slim

# Only the docker CLI (/usr/local/bin/docker) is taken from this image: no daemon, no containerd.
FROM ${DOCKER_CLI_IMAGE} AS docker-cli

FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    KOZYR_VAR_DIR=/srv/kozyr/var \
    MEDIA_ROOT=/srv/kozyr/media

COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker

# A fixed uid/gid: the worker's bind-mounted folder on the host must belong to it (docs/operations.md).
# Its home is writable (gunicorn's control socket, the docker CLI's config); the code is not.
RUN groupadd --gid 10001 kozyr \
 && useradd --uid 10001 --gid kozyr --home-dir /srv/kozyr/home --shell /usr/sbin/nologin kozyr \
 && install -d -o kozyr -g kozyr -m 0700 /srv/kozyr/home

WORKDIR /srv/kozyr/app

# Dependencies and the arena/sandbox packages first, so a change under platform/ reuses this layer.
# EXTRA_PACKAGES adds optional ones, e.g. boto3 for S3_BUCKET: --build-arg EXTRA_PACKAGES=boto3
ARG EXTRA_PACKAGES=""
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY sandbox ./sandbox
RUN pip install . $EXTRA_PACKAGES && rm -rf build *.egg-info

COPY manage.py ./
COPY platform ./platform
COPY docs ./docs
# the bot author's toolkit: the site builds its wheel from arena/, sandbox/ and this (web/toolkit.py)
COPY toolkit ./toolkit
COPY deploy ./deploy

# Static files are collected with the production storage (hashed, compressed names and a manifest), so the
# throw-away key and host below exist only for this command; nothing of them is kept in the image.
RUN KOZYR_ENV=production \
    SECRET_KEY=collectstatic-only-not-a-secret-0123456789abcdefghijklmnop \
    ALLOWED_HOSTS=build.invalid \
    python manage.py collectstatic --noinput --verbosity 0 \
 && python -m compileall -q platform \
 && install -d -o kozyr -g kozyr -m 0755 /srv/kozyr/var /srv/kozyr/media \
 && chmod 0755 deploy/entrypoint.sh deploy/healthcheck.py

USER kozyr:kozyr
EXPOSE 8000
ENTRYPOINT ["/srv/kozyr/app/deploy/entrypoint.sh"]
# Health checks depend on the role, so docker-compose.yml declares them per service.
CMD ["web"]
