from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.throttle import ThrottledLoginView
from web import challenge_views, docs_pages, kits, metrics, replay_views, tournament_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("signup/", views.signup, name="signup"),
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("profile/", views.profile, name="profile"),
    path("profile/tokens/<str:public_id>/revoke/", views.revoke_token, name="token-revoke"),
    path("games/<str:preset>/", views.preset_page, name="preset"),
    path("bots/", views.bot_list, name="bots"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<str:name>/", views.bot_detail, name="bot"),
    path("matches/<int:pk>/", views.match_detail, name="match"),
    path("challenges/<uuid:set_id>/", challenge_views.challenge_detail, name="challenge"),
    path("matches/<int:pk>/frames/", replay_views.frames_view, name="match-frames"),
    path("matches/<int:pk>/stderr/", replay_views.stderr_view, name="match-stderr"),
    path("tournaments/", tournament_views.tournament_list, name="tournaments"),
    path("tournaments/new/", tournament_views.tournament_new, name="tournament-new"),
    path("tournaments/<int:pk>/", tournament_views.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/join/", tournament_views.tournament_join, name="tournament-join"),
    path("tournaments/<int:pk>/entrants/", tournament_views.tournament_entrant_add, name="tournament-entrant-add"),
    path("tournaments/<int:pk>/entrants/remove/", tournament_views.tournament_entrant_remove,
         name="tournament-entrant-remove"),
    path("tournaments/<int:pk>/rounds/<int:number>/<int:board>/", tournament_views.tournament_board,
         name="tournament-board"),
    path("tournaments/<int:pk>/<str:action>/", tournament_views.tournament_control, name="tournament-control"),
    path("docs/", docs_pages.doc_page, name="docs"),
    path("docs/<slug:slug>/", docs_pages.doc_page, name="doc"),
    path("kits/kozyr-<slug:game>-<slug:language>.zip", kits.kit_zip, name="kit"),
]
