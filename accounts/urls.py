from django.urls import path

from . import api

urlpatterns = [
    path("me", api.MeApi.as_view(), name="api-me"),
    path("accounts/signup", api.SignupApi.as_view(), name="api-accounts-signup"),
    path("accounts/login", api.LoginApi.as_view(), name="api-accounts-login"),
    path("accounts/logout", api.LogoutApi.as_view(), name="api-accounts-logout"),
    path("accounts/password", api.PasswordApi.as_view(), name="api-accounts-password"),
    path("accounts/delete", api.AccountDeleteApi.as_view(), name="api-accounts-delete"),
]
