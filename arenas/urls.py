from django.urls import path

from . import api

urlpatterns = [
    path("arenas", api.ArenaListApi.as_view(), name="api-arenas"),
    path("arenas/<str:code>", api.ArenaDetailApi.as_view(), name="api-arenas-detail"),
    path("arenas/<str:code>/join", api.ArenaJoinApi.as_view(), name="api-arenas-join"),
    path("arenas/<str:code>/next", api.ArenaNextApi.as_view(), name="api-arenas-next"),
    path("arenas/<str:code>/results", api.ArenaResultsApi.as_view(), name="api-arenas-results"),
    path("players/<str:nickname>/arenas", api.PlayerArenasApi.as_view(), name="api-players-arenas"),
]
