// check_resource: Resource Indicators (RFC 8707). This server issues tokens for one protected resource,
// the MCP endpoint {BASE_URL}/mcp; an absent resource means that one, any other is invalid_target.
// At the token endpoint a resource, when given, must be the one the code or grant was bound to.
import { InvalidTarget } from './errors.ts';

export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/mcp`;
}

export function checkResource(value: string | undefined, expected: string): string {
  if (value === undefined || value === '') return expected;
  if (value !== expected) throw new InvalidTarget(`resource must be ${expected}`);
  return value;
}
