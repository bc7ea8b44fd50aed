from django.urls import path

from . import api

urlpatterns = [
    path("races", api.RaceCreateApi.as_view(), name="api-races-create"),
    path("races/<str:code>", api.RaceDetailApi.as_view(), name="api-races-detail"),
    path("races/<str:code>/join", api.RaceJoinApi.as_view(), name="api-races-join"),
]
