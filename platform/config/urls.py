from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

# Registers the token scheme with drf-spectacular before any schema is built: here, not at start-up, so a worker
# (which builds none) is spared drf-spectacular's 0.16 s.
from accounts import schema  # noqa: F401
from api import accounts as accounts_api
from api import bots as bots_api
from api import episodes as episodes_api
from api import games as games_api
from api import matches as matches_api
from api import ratings as ratings_api
from api import remote as remote_api
from api import tournaments as tournaments_api

api_v1 = [
    path("games/", games_api.GameListView.as_view(), name="api-games"),
    path("presets/", games_api.PresetListView.as_view(), name="api-presets"),
    path("presets/<str:name>/", games_api.PresetDetailView.as_view(), name="api-preset"),
    path("me/", accounts_api.MeView.as_view(), name="api-me"),
    path("auth/token/", accounts_api.TokenLoginView.as_view(), name="api-login"),
    path("tokens/", accounts_api.TokenListView.as_view(), name="api-tokens"),
    path("tokens/<str:public_id>/", accounts_api.TokenDetailView.as_view(), name="api-token"),
    path("bots/", bots_api.BotListView.as_view(), name="api-bots"),
    path("bots/<str:name>/", bots_api.BotDetailView.as_view(), name="api-bot"),
    path("bots/<str:name>/versions/", bots_api.VersionListView.as_view(), name="api-versions"),
    path("bots/<str:name>/remote/", remote_api.RemoteView.as_view(), name="api-remote"),
    path("bots/<str:name>/remote/tokens/", remote_api.RemoteTokenView.as_view(), name="api-remote-tokens"),
    path("bots/<str:name>/remote/revoke/", remote_api.RemoteRevokeView.as_view(), name="api-remote-revoke"),
    path("bots/<str:name>/versions/<int:number>/", bots_api.VersionDetailView.as_view(), name="api-version"),
    path("bots/<str:name>/versions/<int:number>/retire/", bots_api.VersionRetireView.as_view(),
         name="api-version-retire"),
    path("bots/<str:name>/versions/<int:number>/download/", bots_api.VersionDownloadView.as_view(),
         name="api-version-download"),
    path("matches/", matches_api.MatchListView.as_view(), name="api-matches"),
    path("matches/<int:pk>/", matches_api.MatchDetailView.as_view(), name="api-match"),
    path("matches/<int:pk>/replay/", matches_api.ReplayView.as_view(), name="api-replay"),
    path("matches/<int:pk>/seats/<int:seat>/log/", matches_api.SeatLogView.as_view(), name="api-seat-log"),
    path("challenges/", matches_api.ChallengeView.as_view(), name="api-challenges"),
    path("episodes/", episodes_api.EpisodeListView.as_view(), name="api-episodes"),
    path("leaderboards/<str:preset>/", ratings_api.LeaderboardView.as_view(), name="api-leaderboard"),
    path("head-to-head/", ratings_api.HeadToHeadView.as_view(), name="api-head-to-head"),
    path("bots/<str:name>/ratings/<str:preset>/", ratings_api.RatingHistoryView.as_view(), name="api-rating-history"),
    path("tournaments/", tournaments_api.TournamentListView.as_view(), name="api-tournaments"),
    path("tournaments/<int:pk>/", tournaments_api.TournamentDetailView.as_view(), name="api-tournament"),
    path("tournaments/<int:pk>/join/", tournaments_api.JoinView.as_view(), name="api-tournament-join"),
    path("tournaments/<int:pk>/leave/", tournaments_api.LeaveView.as_view(), name="api-tournament-leave"),
    *[path(f"tournaments/<int:pk>/{action}/", tournaments_api.host_action(action), name=f"api-tournament-{action}")
      for action in ("start", "pause", "resume", "cancel")],
    path("tournaments/<int:pk>/standings/", tournaments_api.StandingsView.as_view(), name="api-tournament-standings"),
    path("tournaments/<int:pk>/crosstable/", tournaments_api.CrosstableView.as_view(),
         name="api-tournament-crosstable"),
    path("tournaments/<int:pk>/rounds/", tournaments_api.RoundsView.as_view(), name="api-tournament-rounds"),
    path("version-tests/", tournaments_api.VersionTestListView.as_view(), name="api-version-tests"),
    path("version-tests/<int:pk>/", tournaments_api.VersionTestDetailView.as_view(), name="api-version-test"),
    path("version-tests/<int:pk>/stop/", tournaments_api.VersionTestStopView.as_view(), name="api-version-test-stop"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("admin/", admin.site.urls),
    path("data/", include("opendata.urls")),
    path("notifications/", include("notifications.urls")),
    path("", include("web.urls")),
]

handler404 = "web.views.not_found"
handler500 = "web.views.server_error"
