from django.urls import path

from . import api

urlpatterns = [
    path("live", api.LiveApi.as_view(), name="api-live"),
    path("me/watching", api.WatchSettingApi.as_view(), name="api-me-watching"),
]
