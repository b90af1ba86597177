import { ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsIn, IsNotEmpty, IsString, ValidateIf } from 'class-validator';
import { MaxChars } from '@voice/contracts';
import { SCOPES, type Scope } from '../auth/scopes.js';

const scopes = { valid_values: SCOPES };

/** Body of POST /v1/api-keys (constraints are reported bottom-up: the type check sits lowest). */
export class CreateApiKeyBody {
  @ArrayUnique({ message: 'scopes must not repeat a scope' })
  @IsIn(SCOPES, { each: true, message: `scopes may only contain ${SCOPES.join(', ')}`, context: scopes })
  @ArrayNotEmpty({ message: 'scopes must list at least one scope', context: scopes })
  @IsArray({ message: 'scopes must be an array of scope names', context: scopes })
  @IsDefined()
  scopes: Scope[];

  @MaxChars(100)
  @IsNotEmpty({ message: 'name must not be empty' })
  @IsString()
  // Optional, but not nullable: a key's name is a label or absent, and the document says string.
  @ValidateIf((body: { name?: unknown }) => body.name !== undefined)
  name?: string;
}
