"""/metrics for Prometheus: django-prometheus's request metrics, the site's own gauges read from the database at
scrape time, and the memory of the broker's Redis (and the relay's, on a server of its own) with whether each
takes a write (web/redis_memory.py).

The site's gauges come from four queries whatever the size of the site: the queued and running matches (an
index range on status), the matches that ended in the last hour (the index on ``finished``), the leases of
running matches (one row per match being played), and each preset's latest refit (one index lookup per preset).
A worker is seen through the leases it holds and renews (matches/actions.py), so a worker that plays nothing
is not seen. docs/operations.md, "Monitoring", says what each gauge means and what to alert on.

Protected by KOZYR_METRICS_TOKEN: with a token, only ``Authorization: Bearer <token>`` is answered (401
otherwise); without one, the endpoint is open locally and does not exist in production (404).
"""

from __future__ import annotations

import functools
import hmac
import logging
import operator
from collections import defaultdict
from datetime import datetime, timedelta

import prometheus_client
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Min, Q, Subquery
from django.http import Http404, HttpResponse
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector, CollectorRegistry

from arena.games import all_presets
from config.celery_settings import OPEN_QUEUE, SANDBOXED_QUEUE
from config.metrics_dir import multiprocess
from matches.models import Match
from play import slots
from ratings.models import Refit
from web import redis_memory

log = logging.getLogger(__name__)

RECENT = timedelta(hours=1)  # the window of the "ended" and "sandbox start failures" gauges
KINDS = [kind.value for kind in Match.Kind]
ACTIVE = (Match.Status.QUEUED, Match.Status.RUNNING)
ENDED = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED, Match.Status.ABORTED)
# What matches/actions.py writes into Match.failure when it gives a match back because a bot's sandbox could
# not be started (is_infrastructure_failure): a sandbox failure, or the referee's abort for an infrastructure
# cause. Match.failure keeps the last such reason, also once the match finished on another attempt.
SANDBOX_START_FAILED = (Q(failure__contains="the sandbox could not start")
                        | Q(failure__contains="aborted (infrastructure)"))


def _age(now: datetime, then: datetime | None) -> float:
    return max(0.0, (now - then).total_seconds()) if then else 0.0


def _host(lease_owner: str) -> str:
    """``host:pid:nonce`` (play.tasks.lease_owner) → the worker's machine or container."""
    return lease_owner.rsplit(":", 2)[0]


class SiteCollector(Collector):
    """The site's own gauges, computed when Prometheus scrapes."""

    def describe(self):
        return list(self._families(timezone.now(), None, []))

    def collect(self):
        now = timezone.now()
        try:
            rows = self._read(now)
        except DatabaseError as err:  # the request metrics still say something; this says the rest is missing
            log.warning("metrics: the database did not answer (%s)", err)
            rows = None
        yield from self._families(now, rows, slots.announced())  # the relay's, read even without the database

    @staticmethod
    def _read(now: datetime) -> dict:
        active = list(Match.objects.filter(status__in=ACTIVE).values("kind").annotate(
            queued=Count("pk", filter=Q(status=Match.Status.QUEUED)),
            held=Count("pk", filter=Q(status=Match.Status.QUEUED, published_at__isnull=True)),
            running=Count("pk", filter=Q(status=Match.Status.RUNNING)),
            oldest_published=Min("published_at", filter=Q(status=Match.Status.QUEUED)),
            oldest_queued=Min("created", filter=Q(status=Match.Status.QUEUED)),
            oldest_expired=Min("lease_expires", filter=Q(status=Match.Status.RUNNING, lease_expires__lt=now)),
            sandbox=Count("pk", filter=SANDBOX_START_FAILED),
        ).order_by())
        ended = list(Match.objects.filter(finished__gte=now - RECENT, status__in=ENDED).values("kind", "status")
                     .annotate(n=Count("pk"), sandbox=Count("pk", filter=SANDBOX_START_FAILED)).order_by())
        leases = list(Match.objects.filter(status=Match.Status.RUNNING).exclude(lease_owner="")
                      .values_list("lease_owner", "lease_expires", "kind", "open_seats", "sandboxed_seats")
                      .order_by()[:10_000])
        # One scalar subquery per preset, each an index lookup (preset, -at) evaluated once.
        newest = functools.reduce(operator.or_, (
            Q(pk=Subquery(Refit.objects.filter(preset=preset).order_by("-at").values("pk")[:1]))
            for preset in all_presets()))
        refits = list(Refit.objects.filter(newest).values_list("preset", "seconds", "at").order_by())
        return {"active": active, "ended": ended, "leases": leases, "refits": refits}

    @staticmethod
    def _families(now: datetime, rows: dict | None, announced: list[dict]):
        up = GaugeMetricFamily("kozyr_metrics_database_up", "1 when the site's gauges below could be read")
        up.add_metric([], 0 if rows is None else 1)
        yield up
        matches = GaugeMetricFamily("kozyr_matches", "Matches queued (held ones included) or running now",
                                    labels=["kind", "status"])
        held = GaugeMetricFamily("kozyr_matches_held", "Queued matches held in the database, not yet published "
                                 "(a tournament's beyond its few, a user's validations behind their first)",
                                 labels=["kind"])
        ended = GaugeMetricFamily("kozyr_matches_ended_last_hour", "Matches that ended in the last hour",
                                  labels=["kind", "status"])
        wait = GaugeMetricFamily("kozyr_queue_wait_seconds", "Age of the oldest published queued match since it was "
                                 "(last) published", labels=["kind"])
        lag = GaugeMetricFamily("kozyr_recovery_lag_seconds", "Age of the oldest published queued match of any kind "
                                "since it was (last) published: lost messages are sent again after 2 minutes")
        expired = GaugeMetricFamily("kozyr_oldest_expired_lease_seconds", "Seconds past expiry of the oldest "
                                    "running match whose lease expired (beat re-queues them every 15 s)")
        validation = GaugeMetricFamily("kozyr_validation_wait_seconds", "Age of the oldest queued validation match")
        sandbox = GaugeMetricFamily("kozyr_sandbox_start_failures", "Matches queued, running or ended in the last "
                                    "hour whose last release was a sandbox that could not start", labels=["kind"])
        workers = GaugeMetricFamily("kozyr_workers", "Worker hosts holding a live lease on a match now")
        seen = GaugeMetricFamily("kozyr_worker_last_seen_timestamp_seconds", "When each worker host holding a "
                                 "running match last claimed or renewed a lease", labels=["host"])
        playing = GaugeMetricFamily("kozyr_worker_matches", "Running matches each worker host holds",
                                    labels=["host"])
        waiting = GaugeMetricFamily("kozyr_worker_waiting_matches", "Of those, the matches waiting on a person or a "
                                    "remote bot (the open queue's, played in threads, not processes)",
                                    labels=["host"])
        worker_slots = GaugeMetricFamily("kozyr_worker_slots", "Matches each live worker plays at once, as it "
                                         "announced itself (a thread pool's threads, a prefork pool's processes; "
                                         "the bots worker's is its host's admission: config/capacity.py)",
                                         labels=["host", "worker", "pool"])
        sandboxed = GaugeMetricFamily("kozyr_worker_sandboxed_matches", "Of those, the matches with an uploaded "
                                      "bot's seat (the sandboxed queue's, played in threads up to the host's "
                                      "admission: config/capacity.py)", labels=["host"])
        refit_seconds = GaugeMetricFamily("kozyr_refit_duration_seconds", "How long each preset's latest refit "
                                          "took", labels=["preset"])
        refit_at = GaugeMetricFamily("kozyr_refit_last_timestamp_seconds", "When each preset's latest refit ran",
                                     labels=["preset"])
        families = (matches, held, ended, wait, lag, expired, validation, sandbox, workers, seen, playing, waiting,
                    sandboxed, worker_slots, refit_seconds, refit_at)
        for worker in sorted(announced, key=lambda w: (w["host"], w["worker"])):
            worker_slots.add_metric([worker["host"], worker["worker"], worker["pool"]], worker["slots"])
        if rows is None:
            yield from families
            return
        active = {row["kind"]: row for row in rows["active"]}
        counts = {(row["kind"], row["status"]): row for row in rows["ended"]}
        oldest_published = None
        for kind in KINDS:
            row = active.get(kind, {})
            matches.add_metric([kind, Match.Status.QUEUED.value], row.get("queued", 0))
            matches.add_metric([kind, Match.Status.RUNNING.value], row.get("running", 0))
            held.add_metric([kind], row.get("held", 0))
            for status in ENDED:
                ended.add_metric([kind, status.value], counts.get((kind, status.value), {}).get("n", 0))
            wait.add_metric([kind], _age(now, row.get("oldest_published")))
            published = row.get("oldest_published")
            if published and (oldest_published is None or published < oldest_published):
                oldest_published = published
            sandbox.add_metric([kind], row.get("sandbox", 0) + sum(counts.get((kind, s.value), {}).get("sandbox", 0)
                                                                 for s in ENDED))
        lag.add_metric([], _age(now, oldest_published))
        expiries = [row["oldest_expired"] for row in rows["active"] if row["oldest_expired"]]
        expired.add_metric([], _age(now, min(expiries, default=None)))
        validation.add_metric([], _age(now, active.get(Match.Kind.VALIDATION.value, {}).get("oldest_queued")))
        last_seen: dict[str, datetime] = {}
        held_by: dict[str, int] = defaultdict(int)
        open_by: dict[str, int] = defaultdict(int)
        sandboxed_by: dict[str, int] = defaultdict(int)
        live: set[str] = set()
        for owner, expires, kind, open_seats, sandboxed_seats in rows["leases"]:
            host = _host(owner)
            held_by[host] += 1
            queue = Match(kind=kind, open_seats=open_seats, sandboxed_seats=sandboxed_seats).queue
            open_by[host] += queue == OPEN_QUEUE
            sandboxed_by[host] += queue == SANDBOXED_QUEUE
            if expires is None:
                continue
            renewed = expires - timedelta(seconds=settings.LEASE_SECONDS)
            last_seen[host] = max(last_seen.get(host, renewed), renewed)
            if expires >= now:
                live.add(host)
        workers.add_metric([], len(live))
        for host in sorted(held_by):
            playing.add_metric([host], held_by[host])
            waiting.add_metric([host], open_by[host])
            sandboxed.add_metric([host], sandboxed_by[host])
            if host in last_seen:
                seen.add_metric([host], last_seen[host].timestamp())
        for preset, seconds, at in sorted(rows["refits"]):
            refit_seconds.add_metric([preset], seconds)
            refit_at.add_metric([preset], at.timestamp())
        yield from families


SITE = SiteCollector()
REDIS_TIMEOUT_SECONDS = 1.0  # each server's connection and each command: a hung Redis costs a scrape seconds


class RedisCollector(Collector):
    """The broker's memory, and the relay's when it has a server of its own, read at each scrape: INFO memory and
    a write of a few bytes that expire."""

    def describe(self):
        return list(self._families({}))

    def collect(self):
        readings: dict[str, redis_memory.Reading | None] = {}
        for role, url in redis_memory.servers().items():
            try:
                readings[role] = redis_memory.read(url, REDIS_TIMEOUT_SECONDS)
            except Exception as err:  # a Redis that is down is a sample (up 0), not a failed scrape
                log.warning("metrics: the %s's Redis did not answer (%s: %s)", role, type(err).__name__, err)
                readings[role] = None
        yield from self._families(readings)

    @staticmethod
    def _families(readings: dict[str, redis_memory.Reading | None]):
        up = GaugeMetricFamily("kozyr_broker_up", "1 when this Redis answered the scrape", labels=["redis"])
        used = GaugeMetricFamily("kozyr_broker_memory_used_bytes", "Redis's used_memory (INFO memory)",
                                 labels=["redis"])
        limit = GaugeMetricFamily("kozyr_broker_memory_max_bytes", "Redis's maxmemory (0: none); past it Redis "
                                  "refuses every write", labels=["redis"])
        writable = GaugeMetricFamily("kozyr_broker_writable", "1 when this Redis took a small write: 0 on the "
                                     "broker means no worker can take or acknowledge a message", labels=["redis"])
        for role, reading in readings.items():
            up.add_metric([role], 0 if reading is None else 1)
            writable.add_metric([role], 1 if reading is not None and reading.writable else 0)
            if reading is not None:
                used.add_metric([role], reading.used_bytes)
                limit.add_metric([role], reading.max_bytes)
        yield from (up, used, limit, writable)


REDIS = RedisCollector()


class _Default(Collector):
    """prometheus_client's default registry (the request metrics of this process), as one collector."""

    def collect(self):
        return prometheus_client.REGISTRY.collect()


def registry() -> CollectorRegistry:
    """What one scrape reads: every web process's request metrics (summed from their files when the web
    server runs several: config/metrics_dir.py), or this process's, the site's gauges and Redis's."""
    scrape = CollectorRegistry(auto_describe=False)
    if multiprocess():
        MultiProcessCollector(scrape)
    else:
        scrape.register(_Default())
    scrape.register(SITE)
    scrape.register(REDIS)
    return scrape


def allowed(request) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        if settings.PRODUCTION:
            raise Http404("no such page")
        return True
    given = request.headers.get("Authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


def metrics(request):
    if not allowed(request):
        response = HttpResponse("a bearer token is required (KOZYR_METRICS_TOKEN)\n", status=401,
                                content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(prometheus_client.generate_latest(registry()),
                        content_type=prometheus_client.CONTENT_TYPE_LATEST)
