from django.urls import path

from . import api

urlpatterns = [
    path("leaderboards/daily/<str:date>", api.DailyLeaderboardApi.as_view(), name="api-leaderboards-daily"),
    path("leaderboards/daily/<str:date>/me", api.DailyMineApi.as_view(), name="api-leaderboards-daily-me"),
    path("leaderboards/daily/<str:date>/summary", api.DailySummaryApi.as_view(), name="api-leaderboards-daily-summary"),
    path("leaderboards/daily/<str:date>/seed", api.DailySeedApi.as_view(), name="api-leaderboards-daily-seed"),
    path("leaderboards/all-time", api.AllTimeApi.as_view(), name="api-leaderboards-all-time"),
]
