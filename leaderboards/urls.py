from django.urls import path

from . import api

urlpatterns = [
    path("leaderboards/daily/<str:date>", api.DailyLeaderboardApi.as_view(), name="api-leaderboards-daily"),
]
