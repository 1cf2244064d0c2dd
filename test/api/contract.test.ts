import { describe, expect } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { merchantServiceTest } from '../helpers/service-fixtures.js';

// Interface statements checked over HTTP that no other file holds in place.
const it = merchantServiceTest('Contract Shop');
let s: TestService;
let m: Merchant;

it.beforeAll(({ svc, merchant }) => {
  s = svc;
  m = merchant;
});

describe('unknown routes (src/api/errors.ts)', () => {
  it('name the path as the caller sent it, /api included', async () => {
    const api = await call(`${s.api}/v1/nope?x=1`, { key: m.key });
    expect(api.status).toBe(404);
    expect(api.body.error).toEqual({ type: 'invalid_request_error', message: 'Unrecognized request URL (GET /api/v1/nope).' });
    const root = await call(`${s.url}/nope`);
    expect(root.status).toBe(404);
    expect(root.body.error.message).toBe('Unrecognized request URL (GET /nope).');
  });
});

describe('OpenAPI document (interface 8: agent message 1-500 characters)', () => {
  it('documents the agent message limits', async () => {
    const doc = (await call(`${s.api}/openapi.json`)).body;
    const message = doc.components.schemas.AgentMessageInput.properties.message;
    expect(message).toMatchObject({ type: 'string', minLength: 1, maxLength: 500 });
  });
});
