"""What the editor clients show that the server owns (default names, the folders that are
not project code, status texts), served as the ``reks.clientConfiguration`` command; the
same data goes under ``capabilities.experimental.reks`` of the ``initialize`` result."""

from __future__ import annotations

from typing import Any

from lsp_server.lsp.client_config import client_configuration
from lsp_server.lsp.feature import CommandHandler, Feature

COMMAND = "reks.clientConfiguration"


class ClientConfigurationFeature(Feature):
    name = "client-configuration"

    def commands(self) -> dict[str, CommandHandler]:
        return {COMMAND: self.configuration}

    async def configuration(self, arguments: list[Any]) -> dict[str, Any]:
        return client_configuration(self.host.settings)
