"""Server-rendered pages. Thin: they call the same actions as the API."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts import limits
from accounts.actions import TokenLimitReached, do_create_token, do_revoke_token
from accounts.limits import RateLimited
from accounts.models import ApiToken
from analysis.queries import bot_average
from arena.games import GAME_MODULES, all_presets
from arena.games.options import describe
from bots import remote as remote_bots
from bots.access import access_bot, can_see_private
from bots.actions import do_create_bot, do_update_bot
from bots.models import Bot
from bots.upload import check_upload, max_upload_bytes, read_limited
from config.api import error_body
from config.errors import ActionError
from ladder.workload import workload
from matches import relay
from matches.access import deal_embargo, detail_visible, seeds_visible
from matches.models import Match, Seat
from matches.reproduce import bot_arguments, reproduce_command
from matches.validation import do_upload_version
from ratings.actions import leaderboard
from ratings.live import to_elo
from ratings.models import Rating, RatingSnapshot
from ratings.people import people_board
from ratings.queries import head_to_head, ratings_at
from tournaments.models import Trophy
from web import analysis_views, challenge_views, health
from web.bot_status import bots_matches, matches_key, state_of, versions_of
from web.charts import rating_history
from web.forms import NewBotForm, NewTokenForm, SignUpForm, UploadForm
from web.live_views import delay_of, live_options
from web.outcomes import number, recent_matches
from web.replay_views import score_chart
from web.table_views import sit_down_choices

RECENT = 20


def home(request):
    presets = all_presets()
    games = [{"name": g, "presets": [{"name": p, "top": list(leaderboard(p)[:3])}
                                     for p, (family, _) in presets.items() if family == g]} for g in GAME_MODULES]
    return render(request, "web/home.html", {
        "games": games,
        "running": recent_matches(Match.objects.filter(status=Match.Status.RUNNING), 10, request.user),
        "finished": recent_matches(Match.objects.filter(status=Match.Status.FINISHED), 10, request.user),
        "sit": {**sit_down_choices(), "presets": list(presets),
                "preset_groups": [(g, [p for p, (family, _) in presets.items() if family == g]) for g in GAME_MODULES]},
    })


def _refused(request, template: str, context: dict, err: RateLimited):
    """A form refused by a rate limit: the page again, the reason beside the field, 429 and Retry-After."""
    response = render(request, template, context, status=429)
    response["Retry-After"] = str(err.wait)
    return response


def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:  # only accounts really created count
            limits.spend(limits.signups(), limits.client_key(request))
        except RateLimited as err:
            form.add_error(None, str(err))
            return _refused(request, "registration/signup.html", {"form": form}, err)
        user = form.save()
        login(request, user, backend="accounts.backends.LimitedModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create your first bot below.")
        return redirect("bot-new")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def profile(request):
    form = NewTokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            _, new_token = do_create_token(request.user, form.cleaned_data["name"],
                                               form.cleaned_data["expires_in_days"])
        except TokenLimitReached as err:
            form.add_error(err.field, str(err))
        else:
            form = NewTokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    bots = Bot.objects.filter(owner=request.user, kind=Bot.Kind.BOT, deleted__isnull=True).select_related(
        "current_version")
    return render(request, "web/profile.html", {"form": form, "tokens": tokens, "new_token": new_token,
                                                "bots": bots})


@login_required
@require_POST
def revoke_token(request, public_id: str):
    if not do_revoke_token(request.user, public_id):
        raise Http404("no such token")
    messages.success(request, "Token revoked.")
    return redirect("profile")


def bot_list(request):
    bots = (Bot.objects.filter(kind=Bot.Kind.BOT, deleted__isnull=True).select_related("owner", "current_version")
            .order_by("game", "name"))
    game = request.GET.get("game")
    if game in GAME_MODULES:
        bots = bots.filter(game=game)
    query = (request.GET.get("q") or "").strip()
    if query:
        bots = bots.filter(name__icontains=query)
    return render(request, "web/bot_list.html", {"bots": bots[:500], "games": GAME_MODULES, "game": game,
                                                 "q": query})


def _store_upload(request, bot: Bot, uploaded, form) -> bool:
    try:
        data = read_limited(uploaded.chunks(), max_upload_bytes())
        do_upload_version(bot, check_upload(uploaded.name, data))
    except ActionError as err:  # the file is refused, or the bot may not take it: said beside the file
        form.add_error("file", str(err))
        return False
    return True


@login_required
def bot_new(request):
    form = NewBotForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        # The API's allowances (accounts/limits.py): the same counters, whichever way a bot comes in.
        try:
            spent = limits.spend(limits.bot_creations(), request.user.pk)
        except RateLimited as err:
            form.add_error("name", str(err))
            return _refused(request, "web/bot_new.html", {"form": form}, err)
        try:
            limits.spend(limits.uploads(), request.user.pk)
        except RateLimited as err:
            limits.give_back(limits.bot_creations(), request.user.pk, spent)
            form.add_error("file", str(err))
            return _refused(request, "web/bot_new.html", {"form": form}, err)
        with transaction.atomic():
            try:
                bot = do_create_bot(request.user, game=form.cleaned_data["game"], name=form.cleaned_data["name"],
                                    description=form.cleaned_data["description"],
                                    presets=form.cleaned_data["presets"])
                if not form.cleaned_data["open_data"]:  # the author's choice, stated on the form
                    Bot.objects.filter(pk=bot.pk).update(open_data=False)
            except ActionError as err:
                form.add_error(err.field if err.field in form.fields else None, str(err))
                bot = None
            if bot is not None and not _store_upload(request, bot, form.cleaned_data["file"], form):
                transaction.set_rollback(True)
                bot = None
        if bot is not None:
            messages.success(request, "Uploaded. Its validation is followed on this page as it goes.")
            return redirect("bot", name=bot.name)
        limits.give_back(limits.bot_creations(), request.user.pk, spent)  # no bot was made
    chosen = request.FILES.get("file")
    if form.errors and chosen is not None and "file" not in form.errors:
        form.add_error("file", f"choose {chosen.name} again: a browser does not keep a chosen file after an error")
    return render(request, "web/bot_new.html", {"form": form})


def bot_detail(request, name: str):
    bot = access_bot(request.user, name)
    if bot.is_person:
        return person_page(request, bot)
    if bot.deleted is not None:
        return deleted_bot_page(request, bot)
    owner_view = can_see_private(request.user, bot) and request.user.pk == bot.owner_id
    making_remote = request.method == "POST" and "make_remote" in request.POST
    form = UploadForm(None if making_remote else request.POST or None, request.FILES or None)
    refused = None
    remote_made = None
    challenge = None
    if request.method == "POST" and "challenge" in request.POST:
        done, challenge, refused = challenge_views.handle(request, bot)
        if done is not None:
            return done
        form = UploadForm()
    elif request.method == "POST":
        if not owner_view:
            raise Http404("no such bot")
        if "deactivate" in request.POST or "activate" in request.POST:
            do_update_bot(bot, active="activate" in request.POST)
            return redirect("bot", name=bot.name)
        if "revoke_remote" in request.POST:
            revoked = remote_bots.revoke_tokens(bot)
            messages.success(request, f"{revoked} remote token(s) revoked; their connections close within seconds.")
            return redirect("bot", name=bot.name)
        if "make_remote" in request.POST:
            remote_made, refused = _make_remote(request, bot)
        if not making_remote and form.is_valid():
            try:  # the API's upload allowance: the same counter (refused uploads count there too)
                limits.spend(limits.uploads(), request.user.pk)
            except RateLimited as err:
                form.add_error("file", str(err))
                refused = err
            else:
                if _store_upload(request, bot, form.cleaned_data["file"], form):
                    messages.success(request, "Uploaded. The new version's validation is followed on this page as "
                                              "it goes.")
                    return redirect("bot", name=bot.name)
    versions = versions_of(bot)
    state = state_of(bot, versions)
    matches = recent_matches(bots_matches(bot), RECENT, request.user)
    ratings = list(Rating.objects.filter(bot=bot, version_id=bot.current_version_id).order_by("preset"))
    # the rating history, one line per preset: each preset's newest 500 refits, oldest first, in one query
    newest = Window(RowNumber(), partition_by=F("preset"), order_by=F("at").desc())
    series: dict[str, list] = {preset: [] for preset in bot.plays()}
    for preset, *point in (RatingSnapshot.objects.filter(bot=bot, preset__in=list(series)).annotate(newest=newest)
                           .filter(newest__lte=500).order_by("preset", "at")
                           .values_list("preset", "at", "rating", "low", "high")):
        series[preset].append(tuple(point))
    trophies = list(Trophy.objects.filter(bot=bot).select_related("tournament")
                    .order_by("-tournament__finished", "place")[:50])
    context = {"bot": bot, "versions": versions, "matches": matches, "ratings": ratings,
               "history": rating_history(series, f"Rating history of {bot.name}"),
               "trophies": trophies, "state": state, "live_versions": state["waiting"],
               "matches_key": matches_key(bot) if state["waiting"] else "",
               "challenge": challenge or challenge_views.challenge_form(request, bot),
               "opponents": head_to_head_table(bot), "owner_view": can_see_private(request.user, bot),
               "can_upload": owner_view, "form": form, "remote_made": remote_made,
               "remote_connections": remote_bots.open_connections(bot) if owner_view else [],
               "sit": sit_down_choices(game=bot.game, opponent=bot) if bot.on_ladder else None,
               "workload": workload(bot), "analysed": bot_average(bot)}
    if refused is not None:
        return _refused(request, "web/bot_detail.html", context, refused)
    return render(request, "web/bot_detail.html", context)


def deleted_bot_page(request, bot: Bot):
    """A deleted bot's tombstone: who it was, and the matches and tournaments it played (nothing to change)."""
    matches = recent_matches(Match.objects.filter(seats__version__bot=bot).distinct(), RECENT, request.user)
    trophies = list(Trophy.objects.filter(bot=bot).select_related("tournament").order_by("-tournament__finished")[:50])
    return render(request, "web/bot_deleted.html", {"bot": bot, "matches": matches, "trophies": trophies})


def _make_remote(request, bot: Bot):
    """A remote version and its token, shown on the page this once; or the reason it was refused."""
    try:  # a remote version is a version: the uploads' allowance counts it, as the API's does
        limits.spend(limits.uploads(), request.user.pk)
    except RateLimited as err:
        return None, err
    try:
        version, token = remote_bots.do_make_remote_version(bot)
    except ActionError as err:
        messages.error(request, str(err))
        return None, None
    return {"version": version, "token": token,
            "command": remote_bots.connect_command(request.build_absolute_uri("/"), bot.name, token)}, None


def head_to_head_table(bot: Bot, limit: int = 8) -> list[dict]:
    """The bot's most frequent ranked opponents on its presets, with the results between them."""
    ranked = Seat.objects.filter(version__bot=bot, match__ranked=True, match__status=Match.Status.FINISHED)
    opponents = (Seat.objects.filter(match_id__in=ranked.values("match_id")).exclude(version__bot=bot)
                 .values("version__bot_id", "version__bot__name", "match__preset")
                 .annotate(n=Count("match_id", distinct=True)).order_by("-n")[:limit])
    return [{"name": o["version__bot__name"], "preset": o["match__preset"],
             **head_to_head(bot.pk, o["version__bot_id"], o["match__preset"])} for o in opponents]


def match_detail(request, pk: int):
    match = recent_matches(Match.objects.with_deal_in_play().filter(pk=pk), 1, request.user)
    if not match:
        raise Http404("no such match")
    match = match[0]
    seats = [{"row": s, "private": can_see_private(request.user, s.version.bot), "points": number(s.score),
              "detail": s.detail if detail_visible(request.user, s) else ""} for s in match.seats.all()]
    rows = [s["row"] for s in seats]
    # A finished match whose deal another match still plays keeps its replay, chart and logs back.
    embargo = deal_embargo(match) if match.status == Match.Status.FINISHED else None
    replay_visible = (match.kind != Match.Kind.VALIDATION or any(s["private"] for s in seats)) and not embargo
    owns_a_seat = any(s["private"] for s in seats)
    scores_chart = score_chart(match.replay_sha256, f"Match {match.pk}") if replay_visible and match.replay_sha256 \
        else ""
    watchable = match.status == Match.Status.RUNNING and relay.enabled() and (
        match.kind != Match.Kind.VALIDATION or owns_a_seat)
    following = live_options(request.user, match, rows) if watchable else []
    # The reader's own bot failed (crashed, timed out, broke the protocol): the viewer opens where the match stopped,
    # with its stderr there, rather than at a deal that shows nothing wrong yet.
    own_failure = any(s["private"] and s["row"].verdict not in ("", "ok") for s in seats)
    my_table = match.kind == Match.Kind.CASUAL and request.user.is_authenticated and any(
        s.version.bot.is_person and s.version.bot.owner_id == request.user.pk for s in rows)
    return render(request, "web/match_detail.html", {"match": match, "seats": seats, "replay_visible": replay_visible,
                                                     "owns_a_seat": owns_a_seat and not embargo,
                                                     "opens_at_end": own_failure and not embargo,
                                                     "embargo": embargo, "live_views": following,
                                                     "live_delay": delay_of(match), "my_table": my_table,
                                                     "has_person": any(s.version.bot.is_person for s in rows),
                                                     "reproduce": reproduce_command(match),
                                                     "seed_shown": seeds_visible(match),
                                                     "reproduce_bots": _reproduce_bots(request, match),
                                                     "scores_chart": scores_chart,
                                                     "analysis": analysis_views.page_context(request.user, match,
                                                                                             rows, embargo)})


def _reproduce_bots(request, match: Match) -> list[dict]:
    """The command's bots with how the viewer gets each: built in, their own version's download, or not at all
    (another user's file is private)."""
    owners = {s.version.bot.name: s.version.bot for s in match.seats.all()}
    return [{"arg": b, "download": not b.builtin and can_see_private(request.user, owners[b.bot])}
            for b in bot_arguments(match)]


SORTS = {"rating": None, "games": "-games", "score": "-score", "name": "bot__name", "live": "-live_mu"}
SORT_LABELS = {"rating": "sort by Elo (official)", "live": "sort by live rating", "games": "sort by games",
               "score": "sort by score", "name": "sort by name"}
PAGE_SIZE = 50
CHANGE_OVER = timedelta(hours=24)  # the leaderboard's arrows: the official rating's change over this time


def preset_page(request, preset: str):
    presets = all_presets()
    if preset not in presets:
        raise Http404("no such preset")
    game, rules = presets[preset]
    rows = leaderboard(preset)
    query = (request.GET.get("q") or "").strip()
    if query:
        rows = rows.filter(bot__name__icontains=query)
    sort = request.GET.get("sort", "rating")
    if sort not in SORTS:
        sort = "rating"
    if SORTS[sort]:
        rows = rows.order_by(SORTS[sort], "bot__name")
    paginator = Paginator(rows, PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    first = (page.number - 1) * PAGE_SIZE
    listed = list(page.object_list)
    before = ratings_at(preset, [r.bot_id for r in listed], timezone.now() - CHANGE_OVER)  # one query
    viewer = request.user.pk if request.user.is_authenticated else None
    board = []
    for i, row in enumerate(listed):
        then = before.get(row.bot_id)
        change = None if row.official is None or then is None else round(row.official - then)
        board.append({"rank": first + i + 1, "row": row, "mine": viewer is not None and row.bot.owner_id == viewer,
                      "change": change, "size": None if change is None else abs(change),
                      "live": to_elo(row.live_mu)})
    return render(request, "web/preset.html", {
        "preset": preset, "game": game, "options": describe(rules), "page": page, "q": query, "sort": sort,
        "rows": board, "sorts": list(SORT_LABELS.items()), "named_as_game": preset == game,
        "keep": urlencode({k: v for k, v in (("q", query), ("sort", sort)) if v and (k, v) != ("sort", "rating")}),
        "page_range": paginator.get_elided_page_range(page.number, on_each_side=1, on_ends=1),
        "sit": sit_down_choices(game=game, preset=preset), "people": people_with_live_elo(preset)})


def people_with_live_elo(preset: str) -> list[Rating]:
    rows = people_board(preset)
    for row in rows:
        row.live_elo = to_elo(row.live_mu)
    return rows


def person_page(request, person: Bot):
    """A person's page ("@name"): their casual matches at live tables, in every game."""
    seats = Bot.objects.filter(owner_id=person.owner_id, kind=Bot.Kind.PERSON)
    matches = recent_matches(Match.objects.filter(seats__version__bot__in=seats).distinct(), RECENT, request.user)
    ratings = list(Rating.objects.filter(bot__in=seats).order_by("preset"))
    for row in ratings:
        row.live_elo = to_elo(row.live_mu)
    return render(request, "web/person.html", {"person": person, "matches": matches, "ratings": ratings})


def healthz(request):
    """For load balancers and compose: 200 when this process reaches the database, the broker and the cache
    (and the broker takes writes), 200 "degraded" naming what is short, else 503 naming each and why, within
    about a second however they fail (web/health.py)."""
    checks = health.run_checks()
    status = health.status(checks)
    if status == health.OK:
        return JsonResponse({"status": status})
    return JsonResponse({"status": status, **checks}, status=503 if status == health.UNAVAILABLE else 200)


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", f"no API endpoint {request.path}"), status=404)
    return render(request, "404.html", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("server_error", "the server failed; the error was logged"), status=500)
    return render(request, "500.html", status=500)
