"""ASGI entry point: HTTP goes to Django (account attempts counted against their address's
allowance before it, and those past it refused there: accounts/door.py), /ws/ sockets to Channels
consumers behind origin (the site's own, or one of CSRF_TRUSTED_ORIGINS) and session checks, with the
session's player resolved once per socket (scope["player"]), a cap on each player's open sockets, and
outages answered with "try again" (realtime/edges.py). With production settings it refuses to
start until `collectstatic` has run for this code (accordion_site/storage.py): every page would answer
500. Once built, the process's garbage collection is tuned for serving (realtime/collection.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "accordion_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from accounts.door import AttemptsCountedAtTheDoor  # noqa: E402
from accounts.middleware import SocketPlayerMiddleware  # noqa: E402
from accounts.signouts import SignedOutSocketsClosed  # noqa: E402
from arenas.routing import websocket_urlpatterns as arena_websocket_urlpatterns  # noqa: E402
from games.races.routing import websocket_urlpatterns as race_websocket_urlpatterns  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402
from realtime import daphne_limits, frame_costs, socket_memory  # noqa: E402
from realtime.collection import tune_for_serving  # noqa: E402
from realtime.edges import OutageGuard, SiteOriginValidator, SocketsPerPlayer, no_such_socket  # noqa: E402

from .control_characters import SocketControlCharactersRefused  # noqa: E402
from .logs import SocketLogContext  # noqa: E402
from .storage import require_collected_static_files  # noqa: E402

require_collected_static_files()
# Under Daphne, an oversized request body is refused while it arrives, before it fills the memory.
daphne_limits.install()
# autobahn's per-frame debug arguments and maskers, Twisted's queuing of every frame, and a frame many sockets
# get framed again for each: CPU for nobody.
frame_costs.install()
# What Daphne keeps for each open socket, made smaller.
socket_memory.install()

# The last route refuses any other socket path with 4404.
socket_routes = [
    *websocket_urlpatterns,
    *race_websocket_urlpatterns,
    *arena_websocket_urlpatterns,
    re_path(r"", no_such_socket),  # type: ignore[arg-type]
]

application = ProtocolTypeRouter(
    {
        "http": AttemptsCountedAtTheDoor(django_asgi_app),
        "websocket": SiteOriginValidator(
            SocketControlCharactersRefused(
                OutageGuard(
                    SocketPlayerMiddleware(
                        SignedOutSocketsClosed(SocketsPerPlayer(SocketLogContext(URLRouter(socket_routes))))
                    )
                )
            )
        ),
    }
)

# Last: everything made so far lives as long as the process (realtime/collection.py).
tune_for_serving()
