import { ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';
import { MaxChars, VOICE_PLATFORMS } from '@voice/contracts';

/** Upper bound on a plan's agent limit: large enough for any real plan, small enough to catch typos. */
export const MAX_AGENT_LIMIT = 100_000;

const platforms = { valid_values: VOICE_PLATFORMS };

/**
 * Body of POST /v1/admin/accounts. class-validator reports constraints bottom-up,
 * so the type check sits lowest and is what a wrongly typed value is told.
 */
export class CreateAccountBody {
  @MaxChars(100)
  @IsNotEmpty({ message: 'name must not be empty' })
  @IsString()
  @IsDefined()
  name: string;

  /** A free-form plan label such as `starter`; the limit that matters is agent_limit. */
  @MaxChars(50)
  @IsNotEmpty({ message: 'plan must not be empty' })
  @IsString()
  @IsDefined()
  plan: string;

  @Max(MAX_AGENT_LIMIT)
  @Min(0)
  @IsInt({ message: 'agent_limit must be an integer' })
  @IsDefined()
  agent_limit: number;

  /** The platforms the account is entitled to (it still needs an integration for each it uses); default both. */
  @ArrayUnique({ message: 'voice_platforms must not repeat a platform' })
  @IsIn(VOICE_PLATFORMS, { each: true, message: `voice_platforms may only contain ${VOICE_PLATFORMS.join(', ')}`, context: platforms })
  @ArrayNotEmpty({ message: 'voice_platforms must list at least one platform', context: platforms })
  @IsArray({ message: 'voice_platforms must be an array of platform identifiers', context: platforms })
  @IsOptional()
  voice_platforms?: string[];
}
