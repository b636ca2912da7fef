"""Ordinary lines developers paste, which no rule may mask: the table in
tests/fixtures/redaction/ordinary_lines.txt and, made here, hundreds more of the shapes that
look most like secrets without being one: commit hashes, integrity strings, UUIDs, base64 data
and images, public keys, digests, long identifiers, lock-file lines, URLs without credentials,
password prompts without a value, code that reads a secret by name, placeholders, and prose
about passwords in the ten languages the product speaks. Random parts come from a seeded
generator, so the lines are the same on every run. Used by tests/unit/test_false_positives.py and
bench/redaction.py.
"""

from __future__ import annotations

import base64
import random

from tests.helpers.paths import FIXTURES
from tests.helpers.secret_corpus import B64, HEX, fake

TABLE = FIXTURES / "redaction" / "ordinary_lines.txt"


def _table() -> list[str]:
    return [line for line in TABLE.read_text("utf-8").splitlines() if not line.startswith("#|")]


def _hashes() -> list[str]:
    lines = []
    for n in range(24):
        sha = fake(f"sha{n}", 40, HEX)
        short = sha[:7]
        lines += [
            (
                f"git checkout {sha}",
                f"commit {sha}",
                f"git cherry-pick {short}",
                f"HEAD is now at {short} fix the importer's retry",
                f"git rebase -i {short}~3",
                f"https://github.com/acme/shop/blob/{sha}/src/app.py#L{n + 10}",
                f"{short}..{fake(f'sha-b{n}', 7, HEX)}  main -> main",
                f"Merge: {short} {fake(f'sha-m{n}', 7, HEX)}",
            )[n % 8]
        ]
        digest = fake(f"digest{n}", 64, HEX)
        lines += [
            (
                f"{digest}  release-{n}.tar.gz",
                f"image: ghcr.io/acme/api@sha256:{digest}",
                f'checksum = "{digest}"',
                f"sha256 = {digest}",
                f'ETag: "{digest[:32]}"',
                f"Digest: sha256:{digest}",
            )[n % 6]
        ]
    return lines


def _integrity() -> list[str]:
    lines = []
    for n in range(24):
        sri384 = fake(f"sri{n}", 64, B64)
        sri512 = fake(f"sri5{n}", 86, B64) + "=="
        gosum = fake(f"gosum{n}", 43, B64) + "="
        lines += [
            (
                f'<script src="https://cdn.example.com/lib{n}.js" integrity="sha384-{sri384}" '
                'crossorigin="anonymous"></script>',
                f'      "integrity": "sha512-{sri512}",',
                f"  resolution: {{integrity: sha512-{sri512}}}",
                f"golang.org/x/net v0.{n}.0 h1:{gosum}",
                f"golang.org/x/sys v0.{n}.0/go.mod h1:{gosum}",
                f'    {{file = "pkg-{n}.0-py3-none-any.whl", hash = "sha256:'
                f'{fake(f"whl{n}", 64, HEX)}"}},',
            )[n % 6]
        ]
    return lines


def _uuid(seed: str) -> str:
    raw = fake(seed, 32, HEX)
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:]}"


def _ids() -> list[str]:
    lines = []
    for n in range(30):
        uid = _uuid(f"uid{n}")
        lines += [
            (
                f"request_id={uid}",
                f'"id": "{uid}",',
                f"X-Request-Id: {uid}",
                f"session {uid} resumed",
                f"DELETE /api/projects/{uid}",
                f"tenant_id: {uid}",
                f"SUBSCRIPTION_ID={uid}",
                f"--resource-group rg-{n} --subscription {uid}",
                f"trace_id={fake(f'tr{n}', 32, HEX)} span_id={fake(f'sp{n}', 16, HEX)}",
                f"correlationId: {uid}",
            )[n % 10]
        ]
    return lines


def _base64_data() -> list[str]:
    lines = []
    rng = random.Random("b64")
    for n in range(24):
        raw = bytes(rng.randrange(256) for _ in range(30 + n))
        text = base64.b64encode(raw).decode()
        words = base64.b64encode(f"lorem ipsum dolor sit amet {n} consectetur".encode()).decode()
        lines += [
            (
                f'EXPECTED_{n} = "{words}"',
                f"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAA{text}",
                f"    {text}",
                f'assert encode(sample_{n}) == "{text}"',
                f"background: url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0i{text});",
                f'"thumbnail": "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ{text}",',
            )[n % 6]
        ]
    return lines


def _public_keys() -> list[str]:
    lines = []
    for n in range(24):
        ed = "AAAAC3NzaC1lZDI1NTE5AAAAI" + fake(f"ed{n}", 43, B64)
        rsa = "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + fake(f"rsa{n}", 200, B64)
        lines += [
            (
                f"ssh-ed25519 {ed} dev{n}@laptop",
                f"ssh-rsa {rsa} ci@build",
                f"github.com ssh-ed25519 {ed}",
                f"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY{fake(f'ec{n}', 60, B64)}=",
                f"      - ssh-ed25519 {ed} ops",
                f"age1{fake(f'age{n}', 58, '023456789acdefghjklmnpqrstuvwxyz')}",
                f"gpg: key {fake(f'gpg{n}', 16, HEX).upper()}: public key imported",
                "-----BEGIN PUBLIC KEY-----MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A"
                + fake(f"pk{n}", 40, B64),
            )[n % 8]
        ]
    return lines


IDENTIFIERS = """getUserAuthenticationTokenFromRequestHeaders
AbstractSingletonProxyFactoryBean
passwordResetTokenExpiryMinutes
validateApiKeyPermissionsForTenant
SecretsManagerClientConfiguration
TokenRefreshSchedulerIntervalSeconds
handleOAuthCallbackAndPersistCredentials
KubernetesServiceAccountTokenProjection
CredentialProviderChainFactory
isPasswordComplexityRequirementSatisfied
MAX_PASSWORD_RESET_ATTEMPTS_PER_HOUR
DEFAULT_TOKEN_ENCODING_ALGORITHM
tokenizer.encode(text, add_special_tokens=False)
AuthenticationMiddlewareWithRateLimiting
useSessionCookieRefreshInterval
createPresignedUploadUrlForAttachment
serializeAccessTokenClaimsToJson
EncryptedSharedPreferencesKeyAlias
ApiKeyAuthenticationHandlerOptions
readKubeconfigContextFromEnvironment
passphrase_prompt_timeout_seconds
private_key_path = Path("~/.ssh/id_ed25519").expanduser()
SigningKeyRotationPolicyDocument
cookieConsentBannerDismissedAt
sessionIdleTimeoutWarningModal
BearerTokenAuthenticationScheme
TwoFactorAuthenticationBackupCodes
XMLHttpRequestUploadProgressEvent
HTTPBasicAuthCredentialsValidator
WebAuthnCredentialRegistrationOptions
generateCsrfTokenForFormSubmission
kms_key_rotation_period_days
SecretStoreCSIDriverProviderClass
npmAuthTokenEnvironmentVariableName
ngrokTunnelPublicUrlResolver
tailscaleNodeKeyExpiryDisabled
cloudflareZoneIdForDnsRecords
vercelProjectEnvironmentVariables
netlifyBuildHookTriggerUrl
supabaseServiceRoleClientFactory
stripeWebhookSignatureVerifier
openaiChatCompletionStreamHandler
anthropicMessagesBatchPoller
huggingfaceHubSnapshotDownload
databricksSqlWarehouseConnector
pgpassFilePermissionsChecker
netrcMachineEntryParser
gitCredentialHelperStoreBackend
dockerConfigJsonAuthsResolver
kubeconfigClientCertificateLoader""".splitlines()

LOCK_FILES = """    "node_modules/@babel/core": {
      "resolved": "https://registry.npmjs.org/@babel/core/-/core-7.24.0.tgz",
"@types/node@^20.11.0":
  resolved "https://registry.yarnpkg.com/@types/node/-/node-20.11.5.tgz#7b0f1a9c6c3a9b1c2d3e4f5a6b7c8d9e0f1a2b3c"
  version "20.11.5"
  dependencies:
    undici-types "~5.26.4"
  /@esbuild/linux-x64@0.20.2:
    resolution: {tarball: https://registry.npmjs.org/@esbuild/linux-x64/-/linux-x64-0.20.2.tgz}
name = "requests"
version = "2.31.0"
python-versions = ">=3.7"
[[package]]
name = "serde"
source = "registry+https://github.com/rust-lang/crates.io-index"
    specs:
      rack (3.0.9.1)
      rails (7.1.3)
    "symfony/console": "^6.4",
            "reference": "a550a7c99daeedef3f9d23fb82e3531525ff11fd",
github.com/stretchr/testify v1.9.0
require github.com/golang-jwt/jwt/v5 v5.2.1
certifi==2024.2.2 \\
    --hash=sha256:0569859f95fc761b18b45ef421b1290a0f65f147e92a1e5eb3e635f9a5e4e66f \\
    --hash=sha256:dc383c07b76109f368f6106eee2b593b04a011ea4d55f652c6ca24a754d1cdd1
"packages/auth-token-store": {
  "lockfileVersion": 3,
    "node_modules/jsonwebtoken": {
      "version": "9.0.2",
    "node_modules/keytar": {
    "node_modules/@aws-sdk/credential-provider-ini": {
    "node_modules/passport-local": {
    "node_modules/bcrypt": {
        "secretlint": "^8.1.2",""".splitlines()

URLS = """https://github.com/acme/shop.git
git@github.com:acme/shop.git
ssh://git@gitlab.example.com:2222/acme/infra.git
https://octocat@github.com/acme/shop.git
https://api.example.com/v1/items?page=2&per_page=50&sort=created_at
postgres://localhost:5432/app
postgresql://app@db.internal:5432/shop?sslmode=require
mongodb://mongo-0:27017,mongo-1:27017/?replicaSet=rs0
redis://cache:6379/0
http://[::1]:8080/healthz
https://example.com/download/v2.3.1@latest
https://registry.npmjs.org/@scope%2fpackage
https://pkg.go.dev/golang.org/x/oauth2@v0.18.0
https://login.microsoftonline.com/common/oauth2/v2.0/token
https://oauth2.googleapis.com/token?grant_type=refresh_token
https://accounts.google.com/o/oauth2/auth?client_id=1234567890-abc.apps.googleusercontent.com
https://hooks.slack.com/services
https://discord.com/api/webhooks
https://dashboard.ngrok.com/get-started/your-authtoken
https://login.tailscale.com/admin/settings/keys
https://vercel.com/account/tokens
https://app.netlify.com/user/applications#personal-access-tokens
https://dash.cloudflare.com/profile/api-tokens
https://huggingface.co/settings/tokens
https://platform.openai.com/api-keys
https://console.anthropic.com/settings/keys
https://github.com/settings/tokens?type=beta
https://gitlab.com/-/user_settings/personal_access_tokens
https://www.npmjs.com/settings/me/tokens
https://pypi.org/manage/account/token/
https://cloud.digitalocean.com/account/api/tokens
https://id.atlassian.com/manage-profile/security/api-tokens
https://dashboard.stripe.com/test/apikeys
https://user@example.com
mailto:ops@example.com?subject=password%20reset
https://docs.python.org/3/library/getpass.html#getpass.getpass
file:///home/dev/.pgpass
https://www.postgresql.org/docs/current/libpq-pgpass.html
https://everything.curl.dev/http/auth
ftp://ftp.example.com/pub/releases/""".splitlines()

PROMPTS = """Password:
Enter password:
[sudo] password for alice:
Password for 'https://github.com':
Username for 'https://github.com':
Enter passphrase for key '/home/dev/.ssh/id_ed25519':
Enter PEM pass phrase:
Verifying - Enter PEM pass phrase:
Enter keystore password:
Re-enter new password:
mysql -u root -p
psql -h db -U app -W shop
Enter host password for user 'admin':
Mot de passe :
Passwort:
Kennwort:
Contraseña:
Senha:
Пароль:
비밀번호:
パスワード:
密码：
Password (again):
Enter the password for the Wi-Fi network:
Please enter your password.
Mot de passe oublié ?
Passwort vergessen?
¿Olvidaste tu contraseña?
Esqueceu sua senha?
Password dimenticata?
Забыли пароль?
パスワードをお忘れですか？
忘记密码？
비밀번호를 잊으셨나요?""".splitlines()

CODE = """password = os.environ["DB_PASSWORD"]
password=os.environ['DB_PASSWORD']
api_key=None
api_key = os.getenv("OPENAI_API_KEY")
token = os.environ.get("GITHUB_TOKEN", "")
const apiKey = process.env.OPENAI_API_KEY!;
secret := os.Getenv("APP_SECRET")
password: ${{ secrets.DB_PASSWORD }}
api_key: ${API_KEY}
OPENAI_API_KEY=${API_KEY}
password = getpass.getpass("Password: ")
password: Optional[str] = None
token: str | None = None
def login(username: str, password: str) -> Session:
if not password:
user.set_password(form.cleaned_data["password"])
hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
echo "$GHCR_TOKEN" | docker login ghcr.io -u me --password-stdin
docker login -u me --password-stdin < token.txt
curl -u "$USER:$PASS" https://ci.example.com/api
redis-cli -a "$REDIS_PASSWORD" ping
aws configure set region eu-west-1
aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID
aws configure set aws_secret_access_key "$AWS_SECRET_ACCESS_KEY"
az login --service-principal -u "$AZ_APP_ID" -p "$AZ_PASSWORD" --tenant "$AZ_TENANT"
az login --identity
gcloud auth activate-service-account --key-file=sa.json
doctl auth init -t $DIGITALOCEAN_TOKEN
heroku auth:token
ngrok config add-authtoken $NGROK_AUTHTOKEN
ngrok http 8080
tailscale up --authkey=${TS_AUTHKEY}
wget --user=ci --password="$WGET_PASSWORD" https://files.example.com/a.tgz
keytool -list -v -keystore app.jks
openssl pkcs12 -export -in c.pem -out c.p12 -passout env:P12_PASSWORD
PGPASSWORD=$PGPASSWORD psql -h db -U app
export PGPASSFILE=~/.pgpass
chmod 600 ~/.pgpass ~/.netrc ~/.git-credentials
git config --global credential.helper store
npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}
//registry.npmjs.org/:_authToken=${NPM_TOKEN}
"auth": "",
"credsStore": "desktop",
  token: ${KUBE_TOKEN}
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
cookie = request.cookies.get("sessionid")
Cookie: theme=dark; lang=en
Set-Cookie: lang=en; Path=/; SameSite=Lax
response.set_cookie("sessionid", session.key, httponly=True)
Authorization: Bearer <token>
Authorization: Bearer $TOKEN
headers["X-Api-Key"] = settings.API_KEY
api_key=<your-key>
API_KEY=xxxx
API_KEY=xxxxxxxxxxxxxxxxxxxx
token: ***
password: "********"
DB_PASSWORD=<password>
api_key="your-api-key-here"
OPENAI_API_KEY=sk-...
ANTHROPIC_API_KEY=sk-ant-...
GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
SECRET_KEY=changeme
api_key: YOUR_API_KEY
token = "REPLACE_ME"
password = "<changeme>"
"apiKey": "{{ api_key }}",
hostname:port:database:username:password
machine example.com login <user> password <token>
https://<user>:<token>@github.com/acme/shop.git
mysql -u root -p"$MYSQL_ROOT_PASSWORD" shop""".splitlines()

PROSE = """The password is required.
Your password is too short: use at least 12 characters.
The password is hashed with bcrypt before it is stored.
The password is stored as a SHA256 hash, never in clear.
Password must be at least 8 characters long.
Use password authentication only over TLS.
The password was reset by an administrator.
My password is in the vault, ask ops for access.
Change the password to something stronger.
We use password managers; never paste the password here.
Le mot de passe est incorrect.
Le mot de passe est obligatoire.
Votre mot de passe a expiré, changez-le.
Mot de passe : voir le coffre de l'équipe
Das Passwort ist falsch.
Das Passwort ist abgelaufen, bitte ändern.
Passwort: siehe Tresor
Passwort vergessen? Dann setze es zurück.
La contraseña es obligatoria.
La contraseña es incorrecta, inténtalo de nuevo.
Contraseña: la del gestor de contraseñas
A senha é obrigatória.
A senha é inválida ou expirou.
Senha: está no cofre da equipe
La password è scaduta.
La password è obbligatoria per accedere.
Password: vedi il gestore delle password
パスワードは必須です。
パスワードが間違っています。
パスワード：保管庫を参照してください
密码是必填项。
密码错误，请重试。
密码：请查看密码管理器
비밀번호는 필수입니다.
비밀번호가 올바르지 않습니다.
비밀번호: 금고를 확인하세요
Пароль не подходит.
Пароль должен содержать не менее 8 символов.
Пароль: смотрите в хранилище
Forgot your password? Reset it from the login page.
password reset emails are rate limited
The API key is rotated every 90 days.
Tokens expire after one hour; the refresh token lasts a week.
The session cookie is HttpOnly and Secure.
Paste your ngrok authtoken from the dashboard.
Tailscale auth keys expire after 90 days by default.
Set the Vercel token in the project settings, not in the repository.
The .pgpass file must not be group- or world-readable.
Each line of .netrc names a machine, a login and a password.
Docker keeps registry auths in ~/.docker/config.json.
A kubeconfig user may hold a token or a client certificate.
The API密钥 is shown once; store it in the secrets manager.
Store the API key in an environment variable, never in code.
Bearer tokens are sent in the Authorization header.
Basic authentication sends the username and password base64-encoded.
the password is the one from the onboarding doc
senha do banco: a mesma de produção
Passwort für den Server: frag das Ops-Team
Пароль от сервера: спросите у администратора
contraseña de la base de datos: en el gestor""".splitlines()


def generated() -> list[str]:
    """The lines made here (without the table's)."""
    lines = [
        *_hashes(),
        *_integrity(),
        *_ids(),
        *_base64_data(),
        *_public_keys(),
        *IDENTIFIERS,
        *LOCK_FILES,
        *URLS,
        *PROMPTS,
        *CODE,
        *PROSE,
    ]
    rng = random.Random("camel")
    words = ["user", "account", "token", "session", "password", "key", "secret", "cookie"]
    for n in range(40):
        picked = [rng.choice(words).capitalize() for _ in range(4 + n % 4)]
        name = "".join(picked)
        lines.append(f"const {name[0].lower()}{name[1:]}{n} = new {name}Factory();")
    return list(dict.fromkeys(lines))


ORDINARY: list[str] = list(dict.fromkeys([*_table(), *generated()]))
