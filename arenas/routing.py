from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/arenas/<str:code>/", consumers.ArenaConsumer.as_asgi()),
]
