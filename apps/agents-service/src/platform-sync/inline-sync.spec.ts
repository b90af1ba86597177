import { describe, expect, it } from '@jest/globals';
import { creationRefusal } from './inline-sync.js';

describe('a refused create’s answer', () => {
  it('keeps the API codes and the field the platform objected to', () => {
    expect(creationRefusal({ code: 'platform_rejected', message: "voice_id 'x' does not exist", field: 'voice_id' })).toEqual({
      code: 'platform_rejected',
      message: "voice_id 'x' does not exist",
      field: 'voice_id',
    });
    for (const code of ['phone_number_in_use', 'phone_number_unavailable', 'invalid_platform_credentials', 'platform_not_configured']) {
      expect(creationRefusal({ code, message: 'm' })).toEqual({ code, message: 'm' });
    }
  });

  it('answers an unusable base URL as the integration’s PUT does, and an unknown code as a platform refusal', () => {
    expect(creationRefusal({ code: 'platform_base_url_refused', message: 'internal address', field: 'base_url' })).toEqual({
      code: 'invalid_platform_credentials',
      field: 'base_url',
      message: 'internal address',
    });
    expect(creationRefusal({ code: 'something_new', message: 'm' })).toEqual({ code: 'platform_rejected', message: 'm' });
  });
});
