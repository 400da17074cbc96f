"""Bots and their immutable versions."""

from __future__ import annotations

import functools

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower

from arena.builds import LANGUAGES
from arena.games import GAME_MODULES, all_presets

PERSON_RUNTIME = "person"  # the runtime of a person's seat: played from the live table's page
# The runtime of a remote version: a program on its owner's machine, played over `arena connect`'s
# connection to the site (bots.remote, docs/protocol.md "Remote bots"); it has no file.
REMOTE_RUNTIME = "remote"
GAME_CHOICES = [(name, name) for name in GAME_MODULES]
# Latin letters only: a name is typed in URLs and on command lines, and one script keeps look-alike names
# (a Cyrillic "а" in "greedy") from passing for someone else's bot.
NAME_RULE = r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$"
NAME_HELP = "2–40 characters: Latin letters (A–Z, a–z), digits, '_', '.', '-', starting with a letter or digit"
NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def name_problem(name: object) -> str | None:
    """What is wrong with a bot name, in words that point at the fault (not the rule repeated), or None."""
    if not isinstance(name, str):
        return "a name must be text"
    if not 2 <= len(name) <= 40:
        return f"it has {len(name)} character{'s' if len(name) != 1 else ''}; a name has 2–40"
    for character in name:
        if character not in NAME_CHARACTERS:
            kind = "a letter of another script" if character.isalpha() else "not allowed"
            shown = repr(character) if character.isprintable() and not character.isspace() else \
                f"U+{ord(character):04X}"
            return f"{shown} is {kind}: use Latin letters A–Z and a–z, digits, '_', '.' or '-'"
    if not name[0].isalnum():
        return f"it starts with {name[0]!r}; start with a Latin letter or a digit"
    return None


@functools.cache
def _presets_of(game: str) -> tuple[str, ...]:
    return tuple(preset for preset, (family, _) in all_presets().items() if family == game)


def presets_of(game: str) -> list[str]:
    """The presets of a game, in registry order (the registry is fixed for the life of the process)."""
    return list(_presets_of(game))


class Bot(models.Model):
    class Kind(models.TextChoices):
        BOT = "bot"
        # A person's own seat at the table (live tables, docs/matches.md): one per user and game, named
        # "@username", never on the ladder; its one version is played from a web page, not a program.
        PERSON = "person"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.BOT)
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    name = models.CharField(max_length=40, validators=[RegexValidator(NAME_RULE, NAME_HELP)])
    description = models.TextField(blank=True, max_length=2000)
    # The presets of its game it plays; empty means all of them (and any preset added later).
    presets = models.JSONField(default=list, blank=True)
    active = models.BooleanField(default=True, help_text="an inactive bot leaves the ladder")
    # Whether its public matches go into the open-data dumps (opendata, docs/data.md). On by default, as lichess
    # publishes every game; read when a dump is built, so a change applies from the next dump on.
    open_data = models.BooleanField(default=True, help_text="its public matches go into the open-data dumps")
    suspended_reason = models.CharField(max_length=300, blank=True,
                                        help_text="set by staff or the ladder; a suspended bot plays no ranked match")
    suspended_by = models.CharField(max_length=10, blank=True, choices=[("staff", "staff"), ("ladder", "ladder")])
    current_version = models.ForeignKey("BotVersion", null=True, blank=True, on_delete=models.SET_NULL,
                                        related_name="+")
    # Deleted by its owner (bots.actions.do_delete_bot): a tombstone. Its matches, replays and rating history stay
    # (other bots' results were played against it), its name stays taken (nobody can pass for it in old
    # replays), and it is on no list, board or form again. Its files stay private to its owner and staff.
    deleted = models.DateTimeField(null=True, blank=True, help_text="when its owner deleted it (a tombstone)")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("name"), condition=models.Q(kind="bot"), name="bot_name_unique_ci"),
            models.UniqueConstraint(fields=["owner", "game"], condition=models.Q(kind="person"),
                                    name="person_seat_unique"),
        ]
        indexes = [models.Index(fields=["game", "active"]), models.Index(fields=["owner", "created"])]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_house(self) -> bool:
        return self.owner.is_system

    def plays(self) -> list[str]:
        return list(self.presets) or presets_of(self.game)

    @property
    def on_ladder(self) -> bool:
        return (self.kind == self.Kind.BOT and self.active and not self.suspended_reason
                and self.current_version_id is not None and self.deleted is None)

    @property
    def is_person(self) -> bool:
        return self.kind == self.Kind.PERSON


class BotVersion(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        REJECTED = "rejected"
        ERROR = "error", "error (the validation could not be played; not the bot's fault)"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # An uploaded version is a file stored by content; a house bot's version names a built-in bot instead.
    sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    size = models.PositiveIntegerField(default=0)
    filename = models.CharField(max_length=255, blank=True)
    builtin = models.CharField(max_length=40, blank=True)
    entry = models.JSONField(default=list, help_text="the command started in the bot's folder")
    runtime = models.CharField(max_length=16)
    language = models.CharField(max_length=8, blank=True,
                                help_text="cpp, rust, go or java: a version sent as source, compiled by the platform")
    build_sha256 = models.CharField(
        max_length=64, blank=True,
        help_text="a version sent as source: the blob of its build, compiled once by the first worker that plays it")
    build_size = models.PositiveIntegerField(
        default=0, help_text="the bytes of its build's blob: counted against its owner's storage (bots.limits)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    retired = models.BooleanField(default=False, help_text="a retired version is never scheduled again")
    reason = models.TextField(blank=True, help_text="why validation rejected it (shown to its owner only)")
    created = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_number_unique")]
        ordering = ["bot", "-number"]

    @property
    def runtime_label(self) -> str:
        """What runs the version, as its page says it: "python3", or "C++, compiled here"."""
        if self.language:
            return f"{LANGUAGES[self.language].label}, compiled here" if self.language in LANGUAGES else self.language
        return self.runtime

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def validation_match(self):
        """The match that validates this version (a house bot's: None). Its own query unless the queryset
        prefetched ``validation_matches``; the match points at the version (matches.Match.validates)."""
        return next(iter(self.validation_matches.all()), None)

    @property
    def validation_match_id(self) -> int | None:
        match = self.validation_match
        return match.pk if match is not None else None

    @property
    def is_remote(self) -> bool:
        return self.runtime == REMOTE_RUNTIME

    @property
    def label(self) -> str:
        """How the version is named in replays and tables (the local runner's BOT label); a person by name."""
        if self.runtime == PERSON_RUNTIME:
            return self.bot.name
        return f"{self.bot.name}@v{self.number}"

    @property
    def storage_name(self) -> str:
        return storage_name(self.sha256)


def storage_name(sha256: str) -> str:
    return f"bots/{sha256[:2]}/{sha256}"


class RemoteToken(models.Model):
    """The key of a bot's remote versions: it lets `arena connect` play this bot's remote version and nothing
    else (no API call, no other bot). Only its SHA-256 digest is stored; the token is shown once."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="remote_tokens")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16, help_text="the token's first characters, to tell tokens apart")
    created = models.DateTimeField(auto_now_add=True)
    revoked = models.DateTimeField(null=True, blank=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.bot.name} {self.prefix}…"


class RemoteConnection(models.Model):
    """One `arena connect` connection, as long as it is open: the row says the version may be matched (while
    ``seen`` is recent: a web process that died leaves a row that goes stale by itself) and what its round
    trips measure, which sets the allowance of its seats' clocks (bots.remote)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="remote_connections")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="remote_connections")
    token = models.ForeignKey(RemoteToken, on_delete=models.CASCADE, related_name="connections")
    address = models.CharField(max_length=64, blank=True)
    opened = models.DateTimeField(auto_now_add=True)
    seen = models.DateTimeField()
    closed = models.DateTimeField(null=True, blank=True)
    max_matches = models.PositiveSmallIntegerField(default=4)
    rtt_p95_ms = models.PositiveIntegerField(null=True, blank=True)
    rtt_samples = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["version", "closed", "seen"]), models.Index(fields=["bot", "closed"])]
        ordering = ["-opened"]

    def __str__(self) -> str:
        return f"{self.bot.name} connection {self.pk}"
