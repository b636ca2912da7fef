"""Fake secrets of every kind the redactor masks, each in the line a developer would paste it in.

The secrets are made here, at run time, from a seeded random generator, in the shape each
provider uses (prefix, length, alphabet); none is a real credential. Building them at run time
also keeps secret scanners from mistaking this file for a leak. `FORMS` is used by the tests
(tests/integration/sqlite/test_secret_corpus.py) and by the benchmark (bench/redaction.py).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


@dataclass(frozen=True)
class Form:
    """One way a secret of `kind` is pasted: `text` holds `secret`, which must not be stored."""

    kind: str
    name: str
    text: str
    secret: str


def fake(seed: str, length: int, alphabet: str = ALNUM) -> str:
    """Random-looking, reproducible key material (never a real credential)."""
    generator = random.Random(seed)
    return "".join(generator.choice(alphabet) for _ in range(length))


def _uuid(seed: str) -> str:
    raw = fake(seed, 32, HEX)
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:]}"


def _pem(kind: str) -> tuple[str, str]:
    body = "MIIEow" + fake(kind, 58, B64) + "\n" + fake(kind + "2", 64, B64)
    begin, end = "-----BEGIN " + kind + " KEY-----", "-----END " + kind + " KEY-----"
    return f"{begin}\n{body}\n{end}", body.split("\n")[1]


def _forms() -> list[Form]:
    forms: list[Form] = []

    def add(kind: str, name: str, template: str, secret: str) -> None:
        forms.append(Form(kind, name, template.format(s=secret), secret))

    # Provider tokens: the prefix says what they are.
    add("openai-key", "project key", "my key is {s}", "sk-" + "proj-" + fake("oa", 48, URLSAFE))
    add("openai-key", "classic key", "OPENAI={s}", "sk-" + fake("oa2", 48))
    add(
        "anthropic-key",
        "api key",
        "client = Anthropic(api_key={s})",
        "sk-" + "ant-api03-" + fake("an", 93, URLSAFE),
    )
    add("openrouter-key", "key", "--header 'x: {s}'", "sk-" + "or-v1-" + fake("or", 64, HEX))
    add("github-token", "classic", "use {s} for the push", "gh" + "p_" + fake("gh", 36))
    add("github-token", "glued after _", "token_{s}", "gh" + "p_" + fake("gh2", 36))
    add(
        "github-token",
        "fine-grained",
        "GH={s}",
        "github" + "_pat_" + fake("gp", 22) + "_" + fake("gp2", 59),
    )
    add("github-token", "app installation", "x-access-token:{s}", "gh" + "s_" + fake("ghs", 36))
    add("gitlab-token", "personal", "PRIVATE-TOKEN: {s}", "gl" + "pat-" + fake("gl", 20, URLSAFE))
    add(
        "gitlab-token", "runner", "--registration-token {s}", "GR1348941" + fake("glr", 20, URLSAFE)
    )
    add(
        "aws-access-key-id",
        "plain",
        "access key {s} in us-east-1",
        "AK" + "IA" + fake("ak", 16, UPPER_ALNUM),
    )
    add("aws-access-key-id", "glued after _", "aws_{s}", "AK" + "IA" + fake("ak2", 16, UPPER_ALNUM))
    add(
        "aws-access-key-id",
        "glued before _",
        "saved {s}_backup.csv",
        "AK" + "IA" + fake("ak3", 16, UPPER_ALNUM),
    )
    add(
        "aws-secret-access-key",
        "credentials file",
        "[default]\naws_secret_access_key = {s}",
        fake("as", 40, B64),
    )
    add("aws-secret-access-key", "sts json", '"SecretAccessKey": "{s}",', fake("as2", 40, B64))
    add(
        "aws-session-token",
        "credentials file",
        "aws_session_token = {s}",
        "IQoJb3JpZ2luX2Vj" + fake("st", 200, B64),
    )
    add(
        "slack-token",
        "bot",
        "SLACK={s}",
        "xo" + "xb-" + "2345678901-" + "3456789012-" + fake("sl", 24),
    )
    add(
        "slack-token",
        "app-level",
        "app token {s}",
        "xa" + "pp-1-" + fake("sa", 11, UPPER_ALNUM) + "-4567890123-" + fake("sa2", 64, HEX),
    )
    add(
        "slack-webhook",
        "webhook",
        "curl -X POST https://hooks.slack.com/services/{s}",
        "T0"
        + fake("sw", 8, UPPER_ALNUM)
        + "/B0"
        + fake("sw2", 8, UPPER_ALNUM)
        + "/"
        + fake("sw3", 24),
    )
    add(
        "discord-webhook",
        "webhook",
        "https://discord.com/api/webhooks/{s}",
        "1234567890123456789/" + fake("dw", 68, URLSAFE),
    )
    add(
        "teams-webhook",
        "webhook",
        "https://contoso.webhook.office.com/{s}",
        "webhookb2/"
        + _uuid("tw")
        + "@"
        + _uuid("tw2")
        + "/IncomingWebhook/"
        + fake("tw3", 32, HEX)
        + "/"
        + _uuid("tw4"),
    )
    add("stripe-key", "live secret", "stripe.api_key = '{s}'", "sk" + "_live_" + fake("sk", 24))
    add("stripe-key", "restricted", "rk {s}", "rk" + "_live_" + fake("rk", 24))
    add(
        "stripe-webhook-secret",
        "endpoint secret",
        "endpoint_secret = '{s}'",
        "wh" + "sec_" + fake("wh", 32),
    )
    add(
        "google-api-key", "maps", "?key={s}&libraries=places", "AI" + "za" + fake("gk", 35, URLSAFE)
    )
    add(
        "google-oauth-secret",
        "client secret",
        '"client_secret":"{s}"',
        "GOC" + "SPX-" + fake("gs", 28, URLSAFE),
    )
    add("google-oauth-token", "access token", "token ya29.{s}", fake("ya", 120, URLSAFE))
    add(
        "huggingface-token",
        "token",
        "huggingface-cli login --token {s}",
        "hf" + "_" + fake("hf", 34),
    )
    add("npm-token", "automation", "NPM={s}", "np" + "m_" + fake("np", 36))
    add("npmrc-auth-token", "legacy uuid", "//registry.npmjs.org/:_authToken={s}", _uuid("npmrc"))
    add(
        "npmrc-auth-token",
        "basic auth",
        "_auth = {s}",
        base64.b64encode(b"ci:" + fake("npma", 16).encode()).decode(),
    )
    add(
        "pypi-token",
        "upload",
        "password = {s}",
        "pypi-" + "AgEIcHlwaS5vcmc" + fake("py", 70, URLSAFE),
    )
    add("rubygems-key", "api key", ":rubygems_api_key: {s}", "rubygems_" + fake("rg", 48, HEX))
    add("nuget-key", "api key", "nuget push pkg.nupkg -k {s}", "oy2" + fake("ng", 43, LOWER_ALNUM))
    add(
        "dockerhub-token",
        "pat",
        "echo {s} | docker login -u me --password-stdin",
        "dckr" + "_pat_" + fake("dh", 27, URLSAFE),
    )
    add(
        "twilio-api-key",
        "api key sid",
        "client = Client('{s}', secret)",
        "SK" + fake("tw", 32, HEX),
    )
    add(
        "sendgrid-api-key",
        "api key",
        "sg = SendGridAPIClient('{s}')",
        "SG." + fake("sg", 22, URLSAFE) + "." + fake("sg2", 43, URLSAFE),
    )
    add("mailgun-api-key", "api key", "auth=('api', '{s}')", "key-" + fake("mg", 32, HEX))
    add(
        "mailchimp-api-key",
        "api key",
        "client.set_config({{'api_key': '{s}'}})",
        fake("mc", 32, HEX) + "-us21",
    )
    add("vault-token", "service token", "vault login {s}", "hv" + "s." + fake("hv", 90, URLSAFE))
    add(
        "discord-bot-token",
        "bot token",
        "discord bot: client.run('{s}')",
        "MT"
        + fake("dc", 24, URLSAFE)
        + "."
        + fake("dc2", 6, URLSAFE)
        + "."
        + fake("dc3", 38, URLSAFE),
    )
    add("heroku-api-key", "uuid after heroku", "heroku authorizations: {s}", _uuid("hk"))
    add("heroku-api-key", "new format", "HK {s}", "HR" + "KU-" + fake("hk2", 60, URLSAFE))
    add("digitalocean-token", "pat", "doctl auth init -t {s}", "dop" + "_v1_" + fake("do", 64, HEX))
    add("shopify-token", "admin api", "X-Shopify-Access: {s}", "sh" + "pat_" + fake("sh", 32, HEX))
    add(
        "databricks-token",
        "pat",
        "databricks configure --token {s}",
        "da" + "pi" + fake("db", 32, HEX),
    )
    add(
        "grafana-token",
        "service account",
        "grafana {s}",
        "gl" + "sa_" + fake("gf", 32) + "_" + fake("gf2", 8, HEX),
    )
    add("grafana-token", "cloud", "GRAFANA_CLOUD={s}", "gl" + "c_" + fake("gc", 64, B64))
    add("linear-api-key", "key", "linear {s}", "lin" + "_api_" + fake("ln", 40))
    add(
        "telegram-bot-token",
        "bot",
        "bot = telebot.TeleBot('{s}')",
        "1234567890:AA" + fake("tg", 33, URLSAFE),
    )
    add(
        "age-secret-key",
        "identity",
        "# created\n{s}",
        "AGE-" + "SECRET-KEY-1" + fake("age", 58, UPPER_ALNUM),
    )
    add(
        "postman-api-key",
        "key",
        "postman {s}",
        "PM" + "AK-" + fake("pm", 24, HEX) + "-" + fake("pm2", 34, HEX),
    )
    add("newrelic-key", "user key", "newrelic {s}", "NR" + "AK-" + fake("nr", 27, UPPER_ALNUM))
    add("square-token", "oauth", "square {s}", "sq0" + "atp-" + fake("sq", 22, URLSAFE))
    add(
        "atlassian-token",
        "api token",
        "jira token {s}",
        "ATA" + "TT3xFfGF0" + fake("at", 180, URLSAFE),
    )
    add(
        "sentry-token",
        "org token",
        "SENTRY={s}",
        "sntr" + "ys_" + "eyJpYXQiOjE3" + fake("se", 80, B64),
    )
    add("doppler-token", "service token", "doppler {s}", "dp." + "st." + "prd." + fake("dp", 40))
    add("pulumi-token", "access token", "pulumi login {s}", "pul-" + fake("pu", 40, HEX))
    add(
        "terraform-token",
        "api token",
        'token = "{s}"',
        fake("tf", 14) + ".atlasv1." + fake("tf2", 67, URLSAFE),
    )
    add(
        "supabase-token",
        "access token",
        "supabase login --token {s}",
        "sb" + "p_" + fake("sb", 40, HEX),
    )
    add(
        "planetscale-token",
        "service token",
        "pscale {s}",
        "pscale" + "_tkn_" + fake("ps", 43, URLSAFE),
    )
    add("replicate-token", "api token", "replicate {s}", "r8" + "_" + fake("r8", 37))
    add("groq-key", "api key", "groq {s}", "gs" + "k_" + fake("gq", 52))
    add("perplexity-key", "api key", "pplx {s}", "pplx-" + fake("px", 48))
    add("xai-key", "api key", "grok {s}", "xai-" + fake("xa", 80))
    add(
        "langsmith-key",
        "api key",
        "langsmith {s}",
        "lsv2" + "_pt_" + fake("ls", 32, HEX) + "_" + fake("ls2", 10, HEX),
    )
    add("notion-token", "integration", "notion {s}", "nt" + "n_" + fake("nt", 46))
    add(
        "airtable-token",
        "pat",
        "airtable {s}",
        "pat" + fake("air", 14) + "." + fake("air2", 64, HEX),
    )
    add("figma-token", "pat", "X-Figma: {s}", "fig" + "d_" + fake("fg", 40, URLSAFE))
    add(
        "dynatrace-token",
        "api token",
        "dynatrace {s}",
        "dt0c01." + fake("dt", 24, UPPER_ALNUM) + "." + fake("dt2", 64, UPPER_ALNUM),
    )
    add(
        "mapbox-token",
        "secret token",
        "mapbox {s}",
        "sk." + "eyJ1Ijoi" + fake("mb", 60, URLSAFE) + "." + fake("mb2", 22, URLSAFE),
    )
    add(
        "1password-token",
        "service account",
        "op {s}",
        "ops_" + "eyJzaWduSW5BZGRyZXNz" + fake("op", 200, URLSAFE),
    )
    add("alibaba-access-key", "access key id", "aliyun {s}", "LT" + "AI" + fake("al", 20))
    add("hubspot-token", "private app", "hubspot {s}", "pat-" + "na1-" + _uuid("hs"))
    add("contentful-token", "cma token", "contentful {s}", "CF" + "PAT-" + fake("cf", 43, URLSAFE))
    add(
        "circleci-token",
        "pat",
        "circleci {s}",
        "CCI" + "PAT_" + fake("ci", 22) + "_" + fake("ci2", 40, HEX),
    )
    add("flyio-token", "deploy token", "fly {s}", "fo1_" + fake("fly", 43, URLSAFE))
    add(
        "azure-client-secret",
        "app secret",
        "az ad sp: {s}",
        fake("az", 3) + "8Q~" + fake("az2", 34, ALNUM + "_~.-"),
    )
    # Secrets known by what stands around them.
    jwt = (
        "eyJ"
        + "hbGciOiJIUzI1NiJ9."
        + "eyJ"
        + fake("jw", 40, URLSAFE)
        + "."
        + fake("jw2", 43, URLSAFE)
    )
    add("jwt", "token", "session={s}", jwt)
    add(
        "bearer-token",
        "header",
        "curl -H 'Authorization: Bearer {s}' https://api",
        fake("br", 40, URLSAFE + "."),
    )
    add(
        "basic-auth",
        "header",
        "Authorization: Basic {s}",
        base64.b64encode(b"admin:" + fake("ba", 14).encode()).decode(),
    )
    add("auth-header-token", "token scheme", "Authorization: Token {s}", fake("tk", 40, HEX))
    add("private-key", "rsa block", "here:\n{s}\nthanks", _pem("RSA PRIVATE")[0])
    add("private-key", "openssh block", "{s}", _pem("OPENSSH PRIVATE")[0])
    add(
        "private-key",
        "base64 in kubeconfig",
        "    client-key-data: {s}",
        base64.b64encode(_pem("EC PRIVATE")[0].encode()).decode(),
    )
    add(
        "putty-private-key",
        "ppk",
        "PuTTY-User-Key-File-3: ssh-rsa\nPrivate-Lines: 2\n{s}\nPrivate-MAC: 00",
        fake("pk", 64, B64) + "\n" + fake("pk2", 40, B64),
    )
    add(
        "azure-storage-key",
        "connection string",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
        fake("az", 86, B64) + "==",
    )
    add(
        "azure-shared-access-key",
        "service bus",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s}",
        fake("sb", 43, B64) + "=",
    )
    add(
        "azure-sas-token",
        "sas url",
        "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sp=r&sig={s}",
        fake("sig", 43, ALNUM) + "%3D",
    )
    add("url-password", "postgres", "postgres://app:{s}@db:5432/app", "s3cr3t-" + fake("pg", 8))
    add(
        "url-password",
        "password with /",
        "mongodb+srv://admin:{s}@cluster0.example.net/db",
        "Zk9/" + fake("mg", 10) + "/q",
    )
    add(
        "npmrc-auth-token",
        "_password",
        "//npm.corp/:_password={s}",
        base64.b64encode(fake("npmp", 12).encode()).decode(),
    )
    add("cli-password", "mysql -p", "mysql -u root -p{s} shop", "Pw" + fake("my", 10))
    add(
        "cli-password",
        "mysqldump -p",
        "mysqldump -h db -u app -p'{s}' shop > dump.sql",
        "Dm" + fake("md", 10),
    )
    add("cli-password", "--password=", "psql-tool --password={s}", "Pp" + fake("pp", 10))
    add("cli-password", "sshpass", "sshpass -p '{s}' ssh deploy@web1", "Sp" + fake("sp", 10))
    add(
        "cli-password",
        "docker login -p",
        "docker login -u me -p {s} registry.example.com",
        "Dl" + fake("dl", 12),
    )
    add("cli-password", "redis-cli -a", "redis-cli -h cache -a {s} ping", "Rc" + fake("rc", 12))
    add(
        "cli-password",
        "curl -u",
        "curl -u admin:{s} https://ci.example.com/api",
        "Cu" + fake("cu", 12),
    )
    add(
        "sql-password",
        "identified by",
        "CREATE USER 'app'@'%' IDENTIFIED BY '{s}';",
        "Sq" + fake("sq", 12),
    )
    add(
        "sql-password",
        "with password",
        "ALTER ROLE app WITH PASSWORD '{s}';",
        "Pg" + fake("pgr", 12),
    )
    add(
        "netrc-password",
        "netrc",
        "machine api.example.com\n  login me\n  password {s}\n",
        "Nr" + fake("nr2", 14),
    )
    # Values of secret-named settings.
    add("password", "lowercase python", 'password = "{s}"', "Lp" + fake("lp", 12))
    add("password", "yaml", "database:\n  password: {s}\n  host: db", "Ym" + fake("ym", 12))
    add(
        "password",
        "Password= in a connection string",
        "Server=db;User Id=sa;Password={s};",
        "Cs" + fake("cs", 12),
    )
    add("password", "db_password=", "db_password={s}", "Dp" + fake("dp2", 12))
    add("password", "DB_PASS=", "DB_PASS={s}", "Ep" + fake("ep", 12))
    add("password", "MYSQL_PWD=", "export MYSQL_PWD={s}", "Mp" + fake("mpw", 12))
    add("password", "json", '{{"user": "app", "password": "{s}"}}', "Jp" + fake("jp", 12))
    add("password", "php array", "'password' => '{s}',", "Ph" + fake("ph", 12))
    add("password", "spring properties", "spring.datasource.password={s}", "Sd" + fake("sd", 12))
    add(
        "password",
        "requests auth tuple",
        'requests.get(url, auth=("admin", "{s}"))',
        "Rq" + fake("rq", 12),
    )
    add("secret", "REDIS_AUTH=", "REDIS_AUTH={s}", "Ra" + fake("ra", 16))
    add("secret", "env var", "export SERVICE_TOKEN={s}", fake("svt", 24))
    add(
        "secret",
        "django",
        "SECRET_KEY = '{s}'",
        "django-insecure-" + fake("dj", 40, LOWER_ALNUM + "!@#%^&*(-_=+)"),
    )
    add("secret", "header", "X-Auth-Token: {s}", fake("xat", 32, HEX))
    add(
        "client-secret",
        "query string",
        "?client_id=abc&client_secret={s}&grant_type=client_credentials",
        fake("cls", 32),
    )
    add("client-secret", "ini", "client_secret={s}", fake("cls2", 40, URLSAFE))
    add("api-key", "json apiKey", '{{"apiKey": "{s}"}}', fake("apk", 32))
    add(
        "api-key",
        "header",
        "curl -H 'X-Api-Key: {s}' https://api.example.com",
        fake("xak", 40, HEX),
    )
    add("api-key", "yaml", "api_key: {s}", fake("yak", 32, HEX))
    _pasted(add)
    return forms


def _pasted(add: Callable[[str, str, str, str], None]) -> None:
    """The forms people were found to paste that the rules once let through, and their kin."""
    b64_40 = fake("cli-aws", 40, B64)
    # Command lines: cloud CLIs, database clients, curl and wget, git remotes.
    add(
        "aws-secret-access-key",
        "aws configure set",
        "aws configure set aws_secret_access_key {s}",
        b64_40,
    )
    add(
        "aws-secret-access-key",
        "aws configure set with profile",
        "aws configure set profile.ci.aws_secret_access_key {s} && aws sts get-caller-identity",
        fake("cli-aws2", 40, B64),
    )
    add(
        "aws-session-token",
        "aws configure set session token",
        "aws configure set aws_session_token {s}",
        "IQoJb3JpZ2luX2Vj" + fake("cli-aws3", 180, B64),
    )
    add(
        "cli-password",
        "az login -p",
        "az login --service-principal -u http://ci-app -p {s} --tenant contoso.onmicrosoft.com",
        "Az" + fake("azl", 14, ALNUM + "~._-"),
    )
    add(
        "cli-password",
        "az login -p quoted",
        "az login -u ops@contoso.com -p '{s}'",
        "Zq" + fake("azl2", 10) + "!x",
    )
    add(
        "cli-password",
        "az storage --account-key",
        "az storage blob upload --account-name acct --account-key {s} -f a.txt",
        fake("azk", 86, B64) + "==",
    )
    add(
        "cli-password",
        "gcloud --password",
        "gcloud sql users set-password root --host=% --instance=db --password={s}",
        "Gc" + fake("gcl", 12),
    )
    add(
        "cli-password",
        "doctl -t",
        "doctl auth init --context ci -t {s}",
        fake("doctl", 64, HEX),
    )
    add(
        "secret",
        "heroku config:set",
        "heroku config:set SESSION_SECRET={s} -a shop",
        fake("hks", 32, HEX),
    )
    add(
        "password",
        "PGPASSWORD before psql",
        "PGPASSWORD={s} psql -h db.internal -U app shop",
        "Pq" + fake("pgpw", 12),
    )
    add(
        "url-password",
        "psql url",
        'psql "postgresql://app:{s}@db.internal:5432/shop?sslmode=require"',
        fake("psqlu", 18),
    )
    add(
        "url-password",
        "mongodb uri",
        "mongosh 'mongodb://admin:{s}@mongo-0:27017/?authSource=admin'",
        fake("mgu", 16),
    )
    add(
        "cli-password",
        "mongo -p",
        "mongo --host mongo-0 -u admin -p {s} --authenticationDatabase admin",
        "Mo" + fake("mgp", 12),
    )
    add(
        "cli-password",
        "redis-cli -a quoted",
        "redis-cli -a '{s}' --no-auth-warning",
        fake("rca", 20),
    )
    add(
        "url-password",
        "redis-cli -u",
        "redis-cli -u redis://default:{s}@cache:6379",
        fake("rcu", 22),
    )
    add(
        "cli-password",
        "sqlcmd -P",
        "sqlcmd -S tcp:db,1433 -U sa -P {s} -Q 'select 1'",
        "Sc" + fake("sqc", 12),
    )
    add(
        "cli-password",
        "mysql -p quoted",
        'mysql -h db -uroot -p"{s}" -e "show databases"',
        "My" + fake("myq", 14),
    )
    add(
        "cli-password",
        "curl --user",
        "curl --user deploy:{s} -X POST https://ci.example.com/job/build",
        "Cv" + fake("cuu", 14),
    )
    add(
        "cli-password",
        "wget --http-password",
        "wget --http-user=ci --http-password={s} https://artifacts.example.com/a.tgz",
        "Wg" + fake("wg", 12),
    )
    add(
        "cli-password",
        "wget --password",
        "wget --user=ci --password {s} ftp://files.example.com/",
        "Wp" + fake("wgp", 12),
    )
    add(
        "cli-password",
        "docker --docker-password",
        "kubectl create secret docker-registry regcred --docker-username=ci --docker-password={s}",
        "Dk" + fake("dkp", 14),
    )
    add(
        "cli-password",
        "keytool -storepass",
        "keytool -importcert -keystore app.jks -storepass {s} -file ca.pem",
        "Ks" + fake("kst", 12),
    )
    add(
        "password",
        "openssl pass:",
        "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{s}",
        "Op" + fake("osl", 12),
    )
    add(
        "url-token",
        "git remote with a hex token",
        "git remote set-url origin https://{s}@github.com/acme/shop.git",
        fake("gitr", 40, HEX),
    )
    add(
        "url-token",
        "git clone with a token as user",
        "git clone https://{s}@gitlab.example.com/acme/infra.git",
        fake("gitr2", 32, URLSAFE) + "9",
    )
    add(
        "url-password",
        "git remote user:token",
        "git remote add origin https://ci-bot:{s}@git.example.com/acme/shop.git",
        fake("gitr3", 40, HEX),
    )
    add(
        "ngrok-token",
        "ngrok config add-authtoken",
        "ngrok config add-authtoken {s}",
        "2" + fake("ngr", 26) + "_" + fake("ngr2", 21),
    )
    add(
        "ngrok-token",
        "ngrok authtoken",
        "./ngrok authtoken {s}",
        "1" + fake("ngr3", 26) + "_" + fake("ngr4", 21),
    )
    add(
        "ngrok-token",
        "ngrok.yml",
        'version: "2"\nauthtoken: {s}\n',
        "2" + fake("ngr5", 26) + "_" + fake("ngr6", 21),
    )
    # Credential files.
    add(
        "pgpass-password",
        ".pgpass line",
        "db.internal:5432:shop:app:{s}",
        "Pg" + fake("pgp", 14),
    )
    add(
        "pgpass-password",
        ".pgpass written by echo",
        "echo 'localhost:*:*:postgres:{s}' >> ~/.pgpass",
        fake("pgp2", 16),
    )
    add(
        "pgpass-password",
        ".pgpass among lines",
        "cat ~/.pgpass\n*:*:*:replicator:{s}\nchmod 600 ~/.pgpass",
        fake("pgp3", 14) + "9",
    )
    add(
        "heroku-api-key",
        ".netrc one line for heroku",
        "machine api.heroku.com login me@example.com password {s}",
        _uuid("netrc1"),
    )
    add(
        "netrc-password",
        ".netrc one line",
        "echo 'machine git.example.com login ci password {s}' >> ~/.netrc",
        "Nt" + fake("netrc2", 14),
    )
    add(
        "url-password",
        ".git-credentials",
        "https://octocat:{s}@github.com",
        fake("gcred", 20),
    )
    add(
        "npmrc-auth-token",
        ".npmrc github packages",
        "//npm.pkg.github.com/:_authToken={s}",
        fake("npmgh", 40, HEX),
    )
    add(
        "npmrc-auth-token",
        "npm config set",
        "npm config set //registry.example.com/:_authToken {s}",
        fake("npmcs", 36),
    )
    add(
        "password",
        ".pypirc password",
        "[testpypi]\nusername = ci\npassword = {s}\n",
        "Tp" + fake("pypirc", 12),
    )
    add(
        "basic-auth",
        "docker config.json auth",
        '{{"auths": {{"registry.example.com": {{"auth": "{s}"}}}}}}',
        base64.b64encode(b"ci:" + fake("dcfg", 12).encode()).decode(),
    )
    add(
        "basic-auth",
        "docker config.json short auth",
        '"auths":{{"ghcr.io":{{"auth":"{s}"}}}}',
        base64.b64encode(b"me:" + fake("dcfg2", 6).encode()).decode(),
    )
    add(
        "secret",
        "docker identitytoken",
        '"identitytoken": "{s}"',
        fake("dcid", 48, URLSAFE),
    )
    add(
        "secret",
        "kubeconfig bootstrap token",
        "users:\n- name: ci\n  user:\n    token: {s}\n",
        fake("kbt", 6, LOWER_ALNUM) + "." + fake("kbt2", 16, LOWER_ALNUM),
    )
    # Wrapped and quoted keys.
    wrapped = "sk-" + "proj-" + fake("wrap", 120, URLSAFE)
    add(
        "openai-key",
        "wrapped over two lines",
        "OPENAI_API_KEY={s}",
        wrapped[:70] + "\n" + wrapped[70:],
    )
    add(
        "openai-key",
        "second half of a wrapped key",
        "key:\n  {s}",
        wrapped[:60] + "\n  " + fake("wrap2", 40, URLSAFE) + "Q1",
    )
    b64 = fake("wrapb", 56, B64)
    add(
        "secret",
        "base64 secret over two lines",
        "SIGNING_SECRET={s}\nREGION=eu-west-1",
        b64[:40] + "\n" + b64[40:],
    )
    add(
        "private-key",
        "pem in json with escaped newlines",
        '{{"type": "service_account", "private_key": "{s}\\n"}}',
        "-----BEGIN "
        + "PRIVATE KEY-----\\n"
        + fake("gpk", 64, B64)
        + "\\n"
        + fake("gpk2", 64, B64)
        + "\\n-----END "
        + "PRIVATE KEY-----",
    )
    add(
        "password",
        "unquoted value with spaces",
        "PASSWORD={s}",
        "correct horse battery staple",
    )
    add(
        "password",
        "export with spaces",
        "export ADMIN_PASSWORD={s}",
        "purple monkey dishwasher " + fake("pmd", 4, LOWER_ALNUM),
    )
    add("password", "quoted with spaces", 'DB_PASSWORD="{s}"', "tall trees " + fake("ttr", 8))
    add("api-key", "short placeholder-shaped key", "api_key={s}", "ZcpmqikFyCpfiuQwjW")
    add(
        "api-key", "short letters-only key", "API_KEY={s}", fake("shortk", 14, string.ascii_letters)
    )
    add("secret", "short letters-only token", 'token: "{s}"', "KpVbRtNwQzLmXs")
    # Cookies and session headers.
    add("cookie", "Cookie header", "Cookie: sessionid={s}", fake("ck", 32, LOWER_ALNUM))
    add(
        "cookie",
        "curl -b",
        "curl -b 'csrftoken=abc; sessionid={s}' https://app.example.com/admin/",
        fake("ck2", 32, LOWER_ALNUM),
    )
    add(
        "cookie",
        "curl -H Cookie",
        'curl -H "Cookie: _session={s}; theme=dark" https://app.example.com',
        fake("ck3", 64, URLSAFE),
    )
    add(
        "cookie",
        "Set-Cookie",
        "< Set-Cookie: connect.sid={s}; Path=/; HttpOnly",
        "s%3A" + fake("ck4", 32, URLSAFE) + "." + fake("ck5", 43, URLSAFE),
    )
    add("cookie", "browser devtools cookie", "cookie: PHPSESSID={s}", fake("ck6", 26, LOWER_ALNUM))
    add("api-key", "X-Api-Key short", "X-API-KEY: {s}", fake("xk", 18, string.ascii_letters))
    add(
        "bearer-token",
        "Authorization Bearer letters",
        "authorization: Bearer {s}",
        fake("brl", 24, string.ascii_letters),
    )
    add(
        "auth-header-token",
        "Authorization token lowercase",
        '-H "Authorization: token {s}"',
        fake("tkl", 40, HEX),
    )
    # Tokens of the services developers use.
    add(
        "tailscale-key",
        "auth key",
        "tailscale up --authkey={s}",
        "tskey-" + "auth-k" + fake("ts", 10, ALNUM) + "CNTRL-" + fake("ts2", 32),
    )
    add(
        "tailscale-key",
        "api key",
        "TS_API_KEY {s}",
        "tskey-" + "api-k" + fake("ts3", 10) + "CNTRL-" + fake("ts4", 32),
    )
    add("vercel-token", "prefixed token", "vercel deploy -t {s}", "vcp_" + fake("vc", 56))
    add("cli-password", "vercel --token", "vercel --prod --token {s}", fake("vc2", 24))
    add("netlify-token", "pat", "netlify {s}", "nfp_" + fake("nf", 36))
    add(
        "cloudflare-key",
        "origin ca key",
        "cf origin {s}",
        "v1.0-" + fake("cfo", 24, HEX) + "-" + fake("cfo2", 146, HEX),
    )
    add(
        "secret",
        "cloudflare global key header",
        "-H 'X-Auth-Key: {s}'",
        fake("cfg", 37, HEX),
    )
    add("buildkite-token", "api token", "buildkite {s}", "bkua_" + fake("bk", 40, HEX))
    add("render-key", "api key", "render {s}", "rnd_" + fake("rnd", 32))
    add(
        "sourcegraph-token",
        "access token",
        "src {s}",
        "sgp_" + fake("sg", 16, HEX) + "_" + fake("sg2", 40, HEX),
    )
    add("pinecone-key", "api key", "pinecone {s}", "pcsk_" + fake("pc", 6) + "_" + fake("pc2", 60))
    add("tavily-key", "api key", "tavily {s}", "tvly-" + fake("tv", 32))
    add("firecrawl-key", "api key", "firecrawl {s}", "fc-" + fake("fc", 32, HEX))
    add("e2b-key", "api key", "e2b {s}", "e2b_" + fake("e2", 40, HEX))
    add("cerebras-key", "api key", "cerebras {s}", "csk-" + fake("cb", 48, LOWER_ALNUM))
    add("together-key", "api key", "together {s}", "tgp_v1_" + fake("tg1", 43, URLSAFE))
    add("resend-key", "api key", "resend {s}", "re_" + fake("rs", 8) + "_" + fake("rs2", 24))
    add("jfrog-token", "api key", "jfrog {s}", "AKCp" + fake("jf", 69))
    add("dropbox-token", "short-lived", "dropbox {s}", "sl." + fake("dbx", 140, URLSAFE))
    add("linear-api-key", "oauth token", "linear {s}", "lin_" + "oauth_" + fake("lno", 64, HEX))
    add("huggingface-token", "org token", "hf org {s}", "api_" + "org_" + fake("hfo", 34))
    add("wandb-key", "wandb login", "wandb login {s}", fake("wb", 40, HEX))
    add(
        "gitlab-token", "incoming mail token", "gitlab {s}", "glimt-" + fake("glm", 25, LOWER_ALNUM)
    )
    add("shopify-token", "custom app", "shopify {s}", "sh" + "pca_" + fake("shc", 32, HEX))
    add(
        "slack-token",
        "user token",
        "slack {s}",
        "xo" + "xp-" + "1234567890-2345678901-3456789012-" + fake("slu", 32, HEX),
    )
    add("twilio-api-key", "env", "TWILIO_API_KEY_SID={s}", "SK" + fake("twe", 32, HEX))
    add(
        "anthropic-key",
        "admin key",
        "ANTHROPIC_ADMIN_KEY={s}",
        "sk-" + "ant-admin01-" + fake("ana", 93, URLSAFE),
    )
    add("openai-key", "service account", "key {s}", "sk-" + "svcacct-" + fake("oas", 60, URLSAFE))
    add("groq-key", "env", "GROQ_API_KEY={s}", "gs" + "k_" + fake("gqe", 52))
    add(
        "databricks-token",
        "header",
        "Authorization: Bearer {s}",
        "da" + "pi" + fake("dbh", 32, HEX),
    )
    add(
        "pypi-token",
        "twine",
        "twine upload -u __token__ -p {s} dist/*",
        "pypi-" + "AgEIcHlwaS5vcmc" + fake("pyt", 60, URLSAFE),
    )
    add("npm-token", "npmrc", "//registry.npmjs.org/:_authToken={s}", "np" + "m_" + fake("npr", 36))
    add(
        "digitalocean-token",
        "env",
        "DIGITALOCEAN_ACCESS_TOKEN={s}",
        "dop" + "_v1_" + fake("doe", 64, HEX),
    )
    add(
        "discord-bot-token",
        "env",
        "DISCORD_TOKEN={s}",
        "MT"
        + fake("dce", 24, URLSAFE)
        + "."
        + fake("dce2", 6, URLSAFE)
        + "."
        + fake("dce3", 38, URLSAFE),
    )
    add(
        "postman-api-key",
        "header",
        "X-Api-Key: {s}",
        "PM" + "AK-" + fake("pme", 24, HEX) + "-" + fake("pme2", 34, HEX),
    )
    add("vault-token", "batch token", "VAULT_TOKEN={s}", "hv" + "b." + fake("hvb", 120, URLSAFE))
    add("flyio-token", "FlyV1 header", "Authorization: FlyV1 {s}", "fm2_" + fake("fm", 120, B64))
    add("notion-token", "legacy secret", "NOTION_KEY={s}", "secret_" + fake("nts", 43))
    add(
        "atlassian-token",
        "env",
        "JIRA_API_TOKEN={s}",
        "ATA" + "TT3xFfGF0" + fake("ate", 180, URLSAFE),
    )
    add(
        "sendgrid-api-key",
        "env",
        "SENDGRID_API_KEY={s}",
        "SG." + fake("sge", 22, URLSAFE) + "." + fake("sge2", 43, URLSAFE),
    )
    add("stripe-key", "restricted test", "stripe {s}", "rk" + "_test_" + fake("rkt", 99))
    add(
        "supabase-token",
        "secret key",
        "SUPABASE_SECRET_KEY={s}",
        "sb_" + "secret_" + fake("sbs", 31, URLSAFE),
    )
    add("pulumi-token", "env", "PULUMI_ACCESS_TOKEN={s}", "pul-" + fake("pue", 40, HEX))
    add("doppler-token", "personal", "doppler login {s}", "dp." + "pt." + fake("dpp", 43))
    add("replicate-token", "env", "REPLICATE_API_TOKEN={s}", "r8" + "_" + fake("r8e", 37))
    add(
        "sonarqube-token",
        "user token",
        "sonar-scanner -Dsonar.token={s}",
        "squ_" + fake("sq_", 40, HEX),
    )
    add("neon-key", "api key", "neonctl --api-key {s}", "napi_" + fake("neon", 64, LOWER_ALNUM))
    add(
        "tencent-secret-id",
        "secret id",
        "tccli configure set secretId {s}",
        "AKID" + fake("tc", 32),
    )
    add(
        "brevo-key",
        "api key",
        "api-key: {s}",
        "xkeysib-" + fake("bv", 64, HEX) + "-" + fake("bv2", 16),
    )
    add("typeform-token", "pat", "typeform {s}", "tfp_" + fake("tfp", 44, URLSAFE))
    add("clickup-token", "pat", "clickup {s}", "pk_" + "12345678_" + fake("cu", 32, UPPER_ALNUM))
    add("fireworks-key", "api key", "fireworks {s}", "fw_" + fake("fw", 24))
    add("anyscale-key", "api key", "anyscale {s}", "esecret_" + fake("any", 28))
    add("runpod-key", "api key", "runpod {s}", "rpa_" + fake("rp", 44, UPPER_ALNUM))
    add("woocommerce-key", "consumer secret", "wc {s}", "cs_" + fake("wc", 40, HEX))
    add(
        "twitter-bearer-token",
        "app bearer",
        "twitter {s}",
        "A" * 22 + fake("tw", 20) + "%3D" + fake("tw2", 50),
    )
    add("paypal-token", "access token", "paypal {s}", "A21AA" + fake("pp", 90, URLSAFE))
    add(
        "braintree-token",
        "access token",
        "braintree {s}",
        "access_token$production$" + fake("bt", 16, LOWER_ALNUM) + "$" + fake("bt2", 32, HEX),
    )
    add(
        "firebase-key",
        "fcm server key",
        "fcm {s}",
        fake("fcm", 11, URLSAFE) + ":APA91b" + fake("fcm2", 134, URLSAFE),
    )
    add(
        "azure-devops-token",
        "pat",
        "az devops login --org x # token {s}",
        fake("ado", 52, LOWER_ALNUM) + fake("ado2", 24) + "AZDO" + fake("ado3", 4),
    )
    # Settings files of other shapes, and more command lines.
    add(
        "password",
        "maven settings.xml",
        "<server><id>r</id><password>{s}</password></server>",
        "Mv" + fake("mvn", 12),
    )
    add("password", "wp-config define", "define( 'DB_PASSWORD', '{s}' );", "Wp" + fake("wpc", 12))
    add("secret", "rails secret_key_base", "secret_key_base: {s}", fake("rails", 128, HEX))
    add(
        "password",
        "libpq key=value",
        'psql "host=db user=app password={s} dbname=shop"',
        "hunterpw",
    )
    add(
        "netrc-password",
        ".netrc default entry",
        "default login anonymous password {s}",
        "Df" + fake("ndef", 12),
    )
    add(
        "cookie",
        "document.cookie",
        'document.cookie = "session={s}; path=/"',
        fake("dck", 40, URLSAFE),
    )
    add("auth-header-token", "OAuth scheme", "Authorization: OAuth {s}", fake("oau", 40, URLSAFE))
    add(
        "aws-secret-access-key",
        "aws configure set quoted",
        'aws configure set aws_secret_access_key "{s}"',
        fake("awsq", 40, B64),
    )
    add("api-key", "API key in words", "my API key is {s}", fake("akw", 32))
    add("api-key", "API key: in words", "API key: {s}", fake("akw2", 24) + "1")
    add("api-key", "fr clé API", "clé API : {s}", fake("akw3", 32))
    add("api-key", "pt chave da API", "chave da API: {s}", fake("akw4", 32))
    add("api-key", "de API-Schlüssel", "API-Schlüssel: {s}", fake("akw5", 32))
    add("password", "username then password", "username admin password {s}", "Up" + fake("upw", 10))
    add("password", "zh 密码为：", "密码为：{s}", "Zw" + fake("zhw", 10))
    add("password", "es la clave es", "la clave es {s}", "Cl" + fake("clv", 10))
    add("password", "ja 「」 quoted", "パスワードは「{s}」です", "Jq" + fake("jaq", 10))
    add("password", "ru пароль —", "пароль — {s}", "Rd" + fake("rud", 10))
    # Passwords said in words, in the product's ten languages.
    add(
        "password",
        "my password is",
        "my password is {s} btw",
        "Hunter" + fake("en1", 6, string.digits),
    )
    add("password", "the password is", "The password is {s}.", fake("en2", 12) + "!")
    add("password", "use password", "ssh in and use password {s} for root", "R00t" + fake("en3", 8))
    add("password", "password was quoted", "the admin password was '{s}'", "swordfish crab")
    add("password", "pt-BR senha:", "senha: {s}", "Sn" + fake("pt1", 10))
    add("password", "pt-BR a senha é", "a senha é {s}, não compartilhe", "Br" + fake("pt2", 10))
    add("password", "es contraseña:", "contraseña: {s}", "Es" + fake("es1", 10))
    add(
        "password",
        "es la contraseña es",
        "La contraseña es {s} y el usuario admin",
        "Cn" + fake("es2", 10),
    )
    add("password", "fr Mot de passe :", "Mot de passe : {s}", "Fr" + fake("fr1", 10))
    add("password", "fr le mot de passe est", "le mot de passe est {s}", "Md" + fake("fr2", 10))
    add("password", "de Passwort:", "Passwort: {s}", "De" + fake("de1", 10))
    add(
        "password",
        "de das Passwort ist",
        "Das Passwort ist {s} (nicht weitergeben)",
        "Pw" + fake("de2", 10),
    )
    add("password", "de Kennwort:", "Kennwort: {s}", "Kw" + fake("de3", 10))
    add("password", "it la password è", "la password è {s}", "It" + fake("it1", 10))
    add("password", "ja パスワード:", "パスワード: {s}", "Ja" + fake("ja1", 10))
    add("password", "ja パスワードは", "パスワードは {s} です", "Jp" + fake("ja2", 10))
    add("password", "zh 密码：", "密码：{s}", "Zh" + fake("zh1", 10))
    add("password", "zh 密码是", "数据库密码是 {s}", "Db" + fake("zh2", 10))
    add("api-key", "zh API密钥=", "API密钥={s}", fake("zh3", 32))
    add("password", "ko 비밀번호:", "비밀번호: {s}", "Ko" + fake("ko1", 10))
    add("password", "ko 비밀번호는", "관리자 비밀번호는 {s} 입니다", "Kr" + fake("ko2", 10))
    add("password", "ru пароль:", "пароль: {s}", "Ru" + fake("ru1", 10))
    add("password", "ru Пароль от", "Пароль от сервера: {s}", "Sr" + fake("ru2", 10))


FORMS: list[Form] = _forms()
KINDS: list[str] = list(dict.fromkeys(form.kind for form in FORMS))
