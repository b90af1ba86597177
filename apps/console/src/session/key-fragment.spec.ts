import { describe, expect, it } from '@jest/globals';
import { keyFromFragment } from './key-fragment';

describe('keyFromFragment', () => {
  it('takes api_key out of the fragment and keeps the rest', () => {
    expect(keyFromFragment('#api_key=vk_abc')).toEqual({ key: 'vk_abc', fragment: '' });
    expect(keyFromFragment('#api_key=vk_abc&tab=2')).toEqual({ key: 'vk_abc', fragment: '#tab=2' });
    expect(keyFromFragment('#api_key=vk%2Babc')).toEqual({ key: 'vk+abc', fragment: '' });
  });
  it('leaves a fragment without a key alone', () => {
    expect(keyFromFragment('#section')).toEqual({ key: undefined, fragment: '#section' });
    expect(keyFromFragment('')).toEqual({ key: undefined, fragment: '' });
  });
  it('drops an empty key without signing in', () => {
    expect(keyFromFragment('#api_key=')).toEqual({ key: undefined, fragment: '' });
  });
});
