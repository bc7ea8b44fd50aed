from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<int:game_id>", views.game, name="game"),
]
