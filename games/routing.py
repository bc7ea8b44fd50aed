from django.urls import path

from . import consumers
from .watching.consumers import LiveConsumer, WatchConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/watch/<int:game_id>/", WatchConsumer.as_asgi()),
    path("ws/live/", LiveConsumer.as_asgi()),
]
