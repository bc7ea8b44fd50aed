from django.urls import path

from . import api

urlpatterns = [
    path("games", api.GameStartApi.as_view(), name="api-games-start"),
    path("games/<int:game_id>", api.GameDetailApi.as_view(), name="api-games-detail"),
    path("games/<int:game_id>/finish", api.GameFinishApi.as_view(), name="api-games-finish"),
    path("games/<int:game_id>/hint", api.GameHintApi.as_view(), name="api-games-hint"),
    path("games/<int:game_id>/winnable", api.GameWinnableApi.as_view(), name="api-games-winnable"),
    path("games/<int:game_id>/analysis", api.GameAnalysisApi.as_view(), name="api-games-analysis"),
    path("games/<int:game_id>/events", api.GameEventsApi.as_view(), name="api-games-events"),
    path("players/<str:nickname>", api.PlayerProfileApi.as_view(), name="api-players-profile"),
]
