from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view loads its script from a file, as the Content-Security-Policy requires; Swagger UI
    # still writes style attributes, so this one page may have inline styles (never inline scripts).
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path("api/", include("games.urls")),
    path("api/", include("games.races.urls")),
    path("api/", include("games.watching.urls")),
    path("api/", include("leaderboards.urls")),
    path("api/", include("arenas.urls")),
    path("api/", include("accounts.urls")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("frontend.urls")),
]

# Static files are WhiteNoise's: collectstatic's hashed files in production, the sources in development
# (WHITENOISE_USE_FINDERS, docs/deploy.md).

# Under /api/ errors are JSON in the API's shape; an outage of the database or Redis is a 503. A page's
# 405 is drawn by the MethodNotAllowedPage middleware (Django has no handler405).
handler400 = views.bad_request
handler403 = views.permission_denied
handler404 = views.page_not_found
handler500 = views.server_error
