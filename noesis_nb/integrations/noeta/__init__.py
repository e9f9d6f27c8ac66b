"""Noeta (extra ``noeta``, package ``noeta-sdk``): Noeta agents as episodes, saved envelopes as rows.

    from noeta.sdk import Options
    from noesis_nb.integrations import start
    from noesis_nb.integrations.noeta import NoetaAdapter
    handle = start("tidy the repo", using=NoetaAdapter(Options(...), provider=my_provider, model="claude-sonnet-5"))

``noeta_rows`` / ``import_noeta`` need no ``noeta`` package (saved ``envelope_to_dict`` dicts).
"""

from ._adapter import NoetaAdapter, NoetaTaskError
from ._envelopes import NoetaEnvelopeError, NoetaFolder, noeta_rows, noeta_usage
from ._import import import_noeta

__all__ = ["NoetaAdapter", "NoetaTaskError", "NoetaEnvelopeError", "NoetaFolder", "noeta_rows", "noeta_usage", "import_noeta"]
