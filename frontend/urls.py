from django.urls import path

from . import arenas, staff, tv, views

urlpatterns = [
    path("", views.home, name="home"),
    path("how-to-play", views.how_to_play, name="how-to-play"),
    path("games/<int:game_id>", views.game, name="game"),
    path("games/<int:game_id>/replay", views.replay, name="replay"),
    path("daily", views.daily, name="daily"),
    path("daily/<str:date>", views.daily, name="daily-date"),
    path("players/<str:nickname>", views.profile, name="profile"),
    path("account", views.account, name="account"),
    path("race", views.race_new, name="race-new"),
    path("race/<str:code>", views.race, name="race"),
    path("live", views.live, name="live"),
    path("watch/<int:game_id>", views.watch, name="watch"),
    path("tv", tv.tv, name="tv"),
    path("arenas", arenas.arenas, name="arenas"),
    path("arenas/<str:code>", arenas.arena, name="arena"),
    path("arenas/<str:code>/results", arenas.arena_results, name="arena-results"),
    path("api/tv", tv.TvApi.as_view(), name="api-tv"),
    path("staff/review/", staff.review_queue, name="staff-review-queue"),
    path("staff/review/<int:game_id>/", staff.review_game, name="staff-review-game"),
]
