// What the server serves to its clients (lsp_server/client_config.py with default settings);
// tests/test_client_config.py checks that clientConfiguration.json is exactly that.
import * as fs from "fs";
import * as path from "path";

import { ClientConfiguration, parseClientConfiguration } from "../serverConfig";

export const RAW_SERVER_CONFIGURATION: unknown = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "src", "test", "clientConfiguration.json"), "utf8"),
);

export function serverConfiguration(): ClientConfiguration {
  const parsed = parseClientConfiguration(RAW_SERVER_CONFIGURATION);
  if (!parsed) {
    throw new Error("clientConfiguration.json does not parse");
  }
  return parsed;
}
