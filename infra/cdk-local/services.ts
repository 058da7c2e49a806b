import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** An AWS error as the JSON protocols carry it: `__type` and `message`, HTTP 400 unless said otherwise. */
export class AwsServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

interface SecretVersion {
  versionId: string;
  secretString: string;
  stages: string[];
  createdAt: string;
}

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  versions: SecretVersion[];
  createdAt: string;
  /** Set by a DeleteSecret with a recovery window: the secret stays, unreadable, until this date. */
  deletionDate?: string;
}

interface StoredParameter {
  name: string;
  type: string;
  value: string;
  version: number;
  modifiedAt: string;
}

interface StoredKey {
  keyId: string;
  arn: string;
  /** AES-256 key material, base64. */
  material: string;
  description?: string;
}

interface State {
  secrets: StoredSecret[];
  parameters: StoredParameter[];
  keys: StoredKey[];
}

type Input = Record<string, unknown>;

/**
 * The parts of Secrets Manager, SSM Parameter Store and KMS that the service's functions use, over one state file
 * (or memory). Operations take and return the JSON protocol's bodies, so the SDK clients run unchanged.
 */
export class AwsServices {
  #state: State;

  constructor(
    private readonly file: string | undefined,
    private readonly region: string,
    private readonly account: string,
  ) {
    this.#state =
      file && existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as State)
        : { secrets: [], parameters: [], keys: [] };
  }

  // Deployment: CloudFormation's part.

  /** Creates the secret unless it exists (a restart over the same data keeps the values functions wrote). */
  ensureSecret(arn: string, secretString: string, description?: string): void {
    if (this.#state.secrets.some((secret) => secret.arn === arn)) return;
    const name = arn.split(':secret:')[1]!.replace(/-[A-Za-z0-9]{6}$/, '');
    const now = new Date().toISOString();
    this.#state.secrets.push({
      arn,
      name,
      description,
      createdAt: now,
      versions: [{ versionId: randomUUID(), secretString, stages: ['AWSCURRENT'], createdAt: now }],
    });
    this.#save();
  }

  ensureParameter(name: string, type: string, value: string): void {
    if (this.#state.parameters.some((parameter) => parameter.name === name)) return;
    this.#state.parameters.push({ name, type, value, version: 1, modifiedAt: new Date().toISOString() });
    this.#save();
  }

  ensureKey(keyId: string, arn: string, description?: string): void {
    if (this.#state.keys.some((key) => key.keyId === keyId)) return;
    this.#state.keys.push({ keyId, arn, description, material: randomBytes(32).toString('base64') });
    this.#save();
  }

  /** The ARN of a secret named by ARN, partial ARN or name; undefined when there is none. */
  secretArn(id: string): string | undefined {
    return this.#findSecret(id)?.arn;
  }

  /** The key ARN of a key id, key ARN, alias or alias ARN; undefined when unknown. */
  keyArn(id: string): string | undefined {
    return this.#findKey(id)?.arn;
  }

  /** The key that produced a ciphertext blob (base64), as KMS reads it from the blob. */
  keyArnForCiphertext(blob: string): string | undefined {
    const keyId = Buffer.from(blob, 'base64').subarray(1, 37).toString('ascii');
    return this.#findKey(keyId)?.arn;
  }

  /** Answers one JSON-protocol call: `secretsmanager.<Op>`, `AmazonSSM.<Op>` or `TrentService.<Op>`. */
  handle(target: string, input: Input): unknown {
    const [service, operation] = target.split('.');
    switch (`${service}.${operation}`) {
      case 'secretsmanager.GetSecretValue':
        return this.#getSecretValue(input);
      case 'secretsmanager.PutSecretValue':
        return this.#putSecretValue(input);
      case 'secretsmanager.DescribeSecret':
        return this.#describeSecret(input);
      case 'secretsmanager.CreateSecret':
        return this.#createSecret(input);
      case 'secretsmanager.DeleteSecret':
        return this.#deleteSecret(input);
      case 'AmazonSSM.GetParameter':
        return { Parameter: this.#parameterView(this.#parameter(String(input.Name))) };
      case 'AmazonSSM.GetParameters': {
        const names = (input.Names as string[]) ?? [];
        const found = names.map((name) => this.#findParameter(name)).filter((p) => p !== undefined);
        return {
          Parameters: found.map((parameter) => this.#parameterView(parameter)),
          InvalidParameters: names.filter((name) => !this.#findParameter(name)),
        };
      }
      case 'AmazonSSM.PutParameter':
        return this.#putParameter(input);
      case 'TrentService.Encrypt':
        return this.#encrypt(input);
      case 'TrentService.Decrypt':
        return this.#decrypt(input);
      case 'TrentService.GenerateDataKey': {
        const bytes = Number(input.NumberOfBytes ?? (input.KeySpec === 'AES_128' ? 16 : 32));
        const plaintext = randomBytes(bytes);
        const sealed = this.#encrypt({ ...input, Plaintext: plaintext.toString('base64') });
        return { ...sealed, Plaintext: plaintext.toString('base64') };
      }
      case 'TrentService.DescribeKey': {
        const key = this.#key(String(input.KeyId));
        return {
          KeyMetadata: {
            KeyId: key.keyId,
            Arn: key.arn,
            AWSAccountId: this.account,
            Enabled: true,
            KeyState: 'Enabled',
            KeyUsage: 'ENCRYPT_DECRYPT',
            KeySpec: 'SYMMETRIC_DEFAULT',
            Description: key.description ?? '',
          },
        };
      }
      default:
        throw new AwsServiceError('UnknownOperationException', `${target} is not emulated locally`);
    }
  }

  #findSecret(id: string): StoredSecret | undefined {
    return this.#state.secrets.find(
      (secret) => secret.arn === id || secret.name === id || (id.startsWith('arn:') && secret.arn.startsWith(`${id}-`)),
    );
  }

  #secret(id: string): StoredSecret {
    const secret = this.#findSecret(id);
    if (!secret)
      throw new AwsServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  }

  /** A secret whose value may be read or changed: not one scheduled for deletion (AWS: InvalidRequestException). */
  #liveSecret(id: string): StoredSecret {
    const secret = this.#secret(id);
    if (secret.deletionDate) {
      throw new AwsServiceError(
        'InvalidRequestException',
        "You can't perform this operation on the secret because it was marked for deletion.",
      );
    }
    return secret;
  }

  #getSecretValue(input: Input) {
    const secret = this.#liveSecret(String(input.SecretId));
    const stage = input.VersionId ? undefined : String(input.VersionStage ?? 'AWSCURRENT');
    const version = secret.versions.find((item) =>
      stage ? item.stages.includes(stage) : item.versionId === input.VersionId,
    );
    if (!version) {
      throw new AwsServiceError(
        'ResourceNotFoundException',
        "Secrets Manager can't find the specified secret value for staging label or version.",
      );
    }
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      SecretString: version.secretString,
      VersionStages: version.stages,
      CreatedDate: Date.parse(version.createdAt) / 1000,
    };
  }

  #putSecretValue(input: Input) {
    const secret = this.#liveSecret(String(input.SecretId));
    if (typeof input.SecretString !== 'string') {
      throw new AwsServiceError('InvalidParameterException', 'SecretString is required locally');
    }
    const versionId = String(input.ClientRequestToken ?? randomUUID());
    const existing = secret.versions.find((version) => version.versionId === versionId);
    if (existing) {
      if (existing.secretString !== input.SecretString) {
        throw new AwsServiceError('ResourceExistsException', 'A version with this ClientRequestToken already exists.');
      }
      // A replayed request changes nothing, and says what that version is now.
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: existing.stages };
    }
    // Versions without a stage are kept, as AWS keeps them, so that a late replay cannot bring one back as current.
    for (const version of secret.versions) {
      version.stages = version.stages.includes('AWSCURRENT') ? ['AWSPREVIOUS'] : [];
    }
    secret.versions.push({
      versionId,
      secretString: input.SecretString,
      stages: ['AWSCURRENT'],
      createdAt: new Date().toISOString(),
    });
    this.#save();
    return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: ['AWSCURRENT'] };
  }

  #describeSecret(input: Input) {
    const secret = this.#secret(String(input.SecretId));
    return {
      ARN: secret.arn,
      Name: secret.name,
      Description: secret.description,
      CreatedDate: Date.parse(secret.createdAt) / 1000,
      ...(secret.deletionDate ? { DeletedDate: Date.parse(secret.deletionDate) / 1000 } : {}),
      VersionIdsToStages: Object.fromEntries(secret.versions.map((version) => [version.versionId, version.stages])),
    };
  }

  #createSecret(input: Input) {
    const name = String(input.Name ?? '');
    if (!/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(name)) {
      throw new AwsServiceError('InvalidParameterException', 'Invalid name');
    }
    const existing = this.#state.secrets.find((secret) => secret.name === name);
    if (existing?.deletionDate) {
      throw new AwsServiceError(
        'InvalidRequestException',
        "You can't create this secret because a secret with this name is already scheduled for deletion.",
      );
    }
    if (existing) {
      throw new AwsServiceError(
        'ResourceExistsException',
        `The operation failed because the secret ${name} already exists.`,
      );
    }
    const arn = `arn:aws:secretsmanager:${this.region}:${this.account}:secret:${name}-${randomBytes(4).toString('hex').slice(0, 6)}`;
    this.ensureSecret(arn, String(input.SecretString ?? ''), input.Description as string | undefined);
    const secret = this.#secret(arn);
    return { ARN: arn, Name: name, VersionId: secret.versions[0]!.versionId };
  }

  /**
   * DeleteSecret as AWS documents it: with ForceDeleteWithoutRecovery the secret and its versions go at once (and a
   * secret that is not there is no error); otherwise it is scheduled for deletion after RecoveryWindowInDays (7–30,
   * default 30) and unreadable until then. The two options exclude each other.
   */
  #deleteSecret(input: Input) {
    const id = String(input.SecretId ?? '');
    const force = input.ForceDeleteWithoutRecovery === true;
    const window = input.RecoveryWindowInDays;
    if (force && window !== undefined) {
      throw new AwsServiceError(
        'InvalidParameterException',
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
      );
    }
    if (window !== undefined && (!Number.isInteger(window) || Number(window) < 7 || Number(window) > 30)) {
      throw new AwsServiceError('InvalidParameterException', 'RecoveryWindowInDays must be between 7 and 30.');
    }
    const secret = this.#findSecret(id);
    const now = Date.now();
    if (!secret) {
      if (force) return { Name: id, DeletionDate: now / 1000 };
      throw new AwsServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    }
    if (force) {
      this.#state.secrets = this.#state.secrets.filter((stored) => stored !== secret);
      this.#save();
      return { ARN: secret.arn, Name: secret.name, DeletionDate: now / 1000 };
    }
    if (secret.deletionDate) {
      throw new AwsServiceError('InvalidRequestException', 'The secret is already scheduled for deletion.');
    }
    secret.deletionDate = new Date(now + Number(window ?? 30) * 86_400_000).toISOString();
    this.#save();
    return { ARN: secret.arn, Name: secret.name, DeletionDate: Date.parse(secret.deletionDate) / 1000 };
  }

  #findParameter(name: string): StoredParameter | undefined {
    const bare = name.startsWith('arn:') ? name.replace(/^arn:[^:]+:ssm:[^:]*:[^:]*:parameter/, '') : name;
    return this.#state.parameters.find(
      (parameter) => parameter.name === bare || `/${parameter.name}` === bare || parameter.name === `/${bare}`,
    );
  }

  #parameter(name: string): StoredParameter {
    const parameter = this.#findParameter(name);
    if (!parameter) throw new AwsServiceError('ParameterNotFound', '');
    return parameter;
  }

  #parameterView(parameter: StoredParameter) {
    const path = parameter.name.startsWith('/') ? parameter.name.slice(1) : parameter.name;
    return {
      Name: parameter.name,
      Type: parameter.type,
      Value: parameter.value,
      Version: parameter.version,
      LastModifiedDate: Date.parse(parameter.modifiedAt) / 1000,
      ARN: `arn:aws:ssm:${this.region}:${this.account}:parameter/${path}`,
      DataType: 'text',
    };
  }

  #putParameter(input: Input) {
    const name = String(input.Name ?? '');
    const value = input.Value;
    if (typeof value !== 'string' || value.length === 0) {
      throw new AwsServiceError('ValidationException', 'Value must not be empty');
    }
    if (Buffer.byteLength(value) > 4096) {
      throw new AwsServiceError('ValidationException', 'Standard parameters hold at most 4 KB');
    }
    const existing = this.#findParameter(name);
    if (existing && input.Overwrite !== true) {
      throw new AwsServiceError('ParameterAlreadyExists', 'The parameter already exists.');
    }
    if (existing) {
      existing.value = value;
      existing.version += 1;
      existing.modifiedAt = new Date().toISOString();
    } else {
      this.#state.parameters.push({
        name,
        type: String(input.Type ?? 'String'),
        value,
        version: 1,
        modifiedAt: new Date().toISOString(),
      });
    }
    this.#save();
    return { Version: existing?.version ?? 1, Tier: 'Standard' };
  }

  #findKey(id: string): StoredKey | undefined {
    return this.#state.keys.find((key) => key.keyId === id || key.arn === id);
  }

  #key(id: string): StoredKey {
    const key = this.#findKey(id);
    if (!key) throw new AwsServiceError('NotFoundException', `Key '${id}' does not exist`);
    return key;
  }

  // Ciphertext blob: version byte 1, the 36-character key id, a 12-byte IV, the 16-byte GCM tag, the ciphertext.
  // The encryption context is the additional authenticated data, so a blob only opens with the same context.
  #encrypt(input: Input) {
    const key = this.#key(String(input.KeyId ?? ''));
    const plaintext = Buffer.from(String(input.Plaintext ?? ''), 'base64');
    if (plaintext.length === 0 || plaintext.length > 4096) {
      throw new AwsServiceError('ValidationException', 'Plaintext must be 1 to 4096 bytes');
    }
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key.material, 'base64'), iv);
    cipher.setAAD(contextBytes(input.EncryptionContext));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const blob = Buffer.concat([Buffer.from([1]), Buffer.from(key.keyId, 'ascii'), iv, cipher.getAuthTag(), body]);
    return { CiphertextBlob: blob.toString('base64'), KeyId: key.arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  }

  #decrypt(input: Input) {
    const blob = Buffer.from(String(input.CiphertextBlob ?? ''), 'base64');
    const key = this.#findKey(blob.subarray(1, 37).toString('ascii'));
    if (blob[0] !== 1 || !key) throw new AwsServiceError('InvalidCiphertextException', '');
    if (input.KeyId && this.keyArn(String(input.KeyId)) !== key.arn) {
      throw new AwsServiceError(
        'IncorrectKeyException',
        'The key ID in the request does not identify the key that encrypted the ciphertext.',
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key.material, 'base64'), blob.subarray(37, 49));
      decipher.setAAD(contextBytes(input.EncryptionContext));
      decipher.setAuthTag(blob.subarray(49, 65));
      const plaintext = Buffer.concat([decipher.update(blob.subarray(65)), decipher.final()]);
      return { Plaintext: plaintext.toString('base64'), KeyId: key.arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    } catch {
      throw new AwsServiceError('InvalidCiphertextException', '');
    }
  }

  #save() {
    if (this.file) writeFileSync(this.file, JSON.stringify(this.#state, null, 2), { mode: 0o600 });
  }
}

function contextBytes(context: unknown): Buffer {
  const entries = Object.entries((context as Record<string, string>) ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return Buffer.from(JSON.stringify(entries));
}
