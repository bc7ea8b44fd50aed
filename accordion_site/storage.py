"""Static files in production: WhiteNoise's compressed copies under hashed names, with the imports
inside the page modules rewritten to those hashed names too. Without that, only the module a page
names was hashed; the modules it imports were fetched by their plain names, cached for a minute, and
after an upgrade a browser could run new and old modules together."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class ModuleStaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
