"""Tokens that say what they are: a provider's own prefix, then key material of a known shape.

Each is masked whole, wherever it stands: alone, inside a URL or an assignment, or glued to a
word by `_` or `-` (`token_ghp_…`, `AKIA…_backup.csv`). A body that could be an ordinary word
must hold a digit or an upper-case letter near its start, checked over a bounded stretch, so
that `sk-learn-compatible-wrapper` stays and a run of prefixes costs little.
"""

from __future__ import annotations

import re
from typing import Final

from history.redaction.rule import Found, Rule, behind, keyed, lazy, token

HEX32: Final = r"[0-9a-f]{32}"
UUID_TAIL: Final = r"[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
UUID: Final = r"[0-9a-fA-F]{8}-" + UUID_TAIL
# Random material has a digit or a capital within its first 16 characters; words do not.
MIXED: Final = r"(?=[a-z_-]{0,16}+[0-9A-Z])"


def _discord_bot_token() -> Rule:
    # Three base64url parts, the first the bot's id (it starts M, N or O); no prefix to skip to,
    # so the rule runs only where Discord or a `Bot` authorisation is mentioned.
    return Rule(
        "discord-bot-token",
        (
            lazy(
                r"[MNO](?<![A-Za-z0-9_-][MNO])[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\."
                r"[A-Za-z0-9_-]{27,40}"
            ),
        ),
        requires=("discord", "Discord", "DISCORD", "Bot "),
    )


def _after_a_heroku_word(match: re.Match[str]) -> Found | None:
    start = match.start() - 8
    line = match.string[max(0, start - 60) : start].rpartition("\n")[2]
    if "heroku" not in line.lower():
        return None
    return Found(start, match.end())


RULES: Final[tuple[Rule, ...]] = (
    # Before `sk-` (OpenAI) and `eyJ` (JWT), which would take them under a vaguer kind.
    token("anthropic-key", ["sk-ant-"], r"[A-Za-z0-9_-]{32,}+"),
    token("openrouter-key", ["sk-or-v1-"], r"[0-9a-f]{64}"),
    token(
        "openai-key",
        ["sk-"],
        r"(?:proj-|svcacct-|admin-|None-)?(?=[a-z_-]{0,12}+[0-9A-Z])[A-Za-z0-9_-]{20,}+",
    ),
    token("mapbox-token", ["sk.eyJ"], r"[A-Za-z0-9_-]{20,}+\.[A-Za-z0-9_-]{10,}+"),
    token("1password-token", ["ops_eyJ"], r"[A-Za-z0-9+/=_-]{50,}+"),
    token("github-token", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], r"[A-Za-z0-9]{36,251}+"),
    token("github-token", ["github_pat_"], r"[A-Za-z0-9_]{36,255}+"),
    token(
        "gitlab-token",
        ["glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glffct-", "glft-"],
        r"[A-Za-z0-9_-]{20,}+",
    ),
    token("gitlab-token", ["glimt-", "glagent-", "glwt-"], r"[A-Za-z0-9_-]{20,}+"),
    token("gitlab-token", ["GR1348941"], r"[A-Za-z0-9_-]{20,}+"),
    token(
        "aws-access-key-id",
        ["AKIA", "ASIA", "ABIA", "ACCA"],
        r"(?=[A-Z0-9]{0,15}[0-9])[A-Z0-9]{16}",
    ),
    token(
        "slack-token",
        ["xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"],
        r"(?=[A-Za-z-]{0,20}+[0-9])[A-Za-z0-9-]{10,}+",
    ),
    token("slack-token", ["xoxe.xox"], r"[bp]-[0-9]-[A-Za-z0-9-]{20,}+"),
    token("slack-token", ["xapp-"], r"[0-9]-[A-Z0-9]{6,}-[0-9]{6,}-[a-f0-9]{20,}+"),
    keyed(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/-]{20,}+)",
    ),
    keyed(
        "discord-webhook",
        r"/api/webhooks/(?:(?<=discord\.com/api/webhooks/)|(?<=discordapp\.com/api/webhooks/))"
        r"(?P<secret>[0-9]{6,}/[A-Za-z0-9_-]{20,}+)",
    ),
    keyed(
        "teams-webhook",
        r"webhook\.office\.com/(?P<secret>webhookb2/[A-Za-z0-9@/_-]{20,}+)",
    ),
    token(
        "stripe-key",
        ["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        r"(?=[a-z]{0,30}+[0-9A-Z])[A-Za-z0-9]{16,}+",
    ),
    token("stripe-webhook-secret", ["whsec_"], r"[A-Za-z0-9+/=]{24,}+"),
    token("google-api-key", ["AIza"], r"[A-Za-z0-9_-]{35,}+"),
    token("google-oauth-secret", ["GOCSPX-"], r"[A-Za-z0-9_-]{24,}+"),
    token("google-oauth-token", ["ya29."], r"[A-Za-z0-9_.-]{30,}+"),
    token("huggingface-token", ["hf_", "api_org_"], MIXED + r"[A-Za-z0-9]{30,}+"),
    token("npm-token", ["npm_"], MIXED + r"[A-Za-z0-9]{30,}+"),
    token("pypi-token", ["pypi-Ag"], r"[A-Za-z0-9_-]{50,}+"),
    token("rubygems-key", ["rubygems_"], r"[a-f0-9]{48}"),
    token("nuget-key", ["oy2"], r"[a-z0-9]{43}"),
    token("dockerhub-token", ["dckr_pat_"], r"[A-Za-z0-9_-]{24,}+"),
    token("twilio-api-key", ["SK"], HEX32),
    token("sendgrid-api-key", ["SG."], r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}"),
    token("mailgun-api-key", ["key-"], HEX32),
    Rule(
        # 32 hex digits, then the data centre: the pattern starts at `-us` and looks back.
        "mailchimp-api-key",
        (lazy(r"-us(?<=[0-9a-f]{32}-us)(?<![A-Za-z0-9][0-9a-f]{32}-us)[0-9]{1,2}(?![0-9])"),),
        behind(32),
    ),
    token("vault-token", ["hvs.", "hvb.", "hvr."], r"[A-Za-z0-9_-]{24,}+"),
    _discord_bot_token(),
    token("heroku-api-key", ["HRKU-"], r"[A-Za-z0-9_-]{40,}+"),
    Rule(
        # A UUID is an API key where Heroku is named just before it, on its line.
        "heroku-api-key",
        (lazy(r"-(?<=[0-9a-fA-F]{8}-)(?<![A-Za-z0-9-][0-9a-fA-F]{8}-)" + UUID_TAIL),),
        _after_a_heroku_word,
        requires=("heroku", "Heroku", "HEROKU"),
    ),
    token("digitalocean-token", ["dop_v1_", "doo_v1_", "dor_v1_"], r"[a-f0-9]{64}"),
    token("shopify-token", ["shpat_", "shpca_", "shppa_", "shpss_"], r"[a-fA-F0-9]{32}"),
    token("databricks-token", ["dapi"], HEX32 + r"(?:-[0-9])?"),
    token("grafana-token", ["glsa_"], r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    token("grafana-token", ["glc_"], r"[A-Za-z0-9+/]{32,}+={0,2}"),
    token("linear-api-key", ["lin_api_"], r"[A-Za-z0-9]{40}"),
    token("linear-api-key", ["lin_oauth_"], r"[a-f0-9]{64}"),
    # `123456789:AA…`: the pattern starts at `AA` (a literal to skip to) and looks back for the id.
    Rule(
        "telegram-bot-token",
        (lazy(r"AA(?<=[0-9]{8}:AA)(?<![0-9]{11}:AA)[A-Za-z0-9_-]{33}"),),
    ),
    token("age-secret-key", ["AGE-SECRET-KEY-1"], r"[0-9A-Z]{58}"),
    token("postman-api-key", ["PMAK-"], r"[a-f0-9]{24}-[a-f0-9]{34}"),
    token("newrelic-key", ["NRAK-", "NRJS-", "NRII-", "NRRA-"], r"[A-Za-z0-9]{19,}+"),
    token("square-token", ["sq0atp-", "sq0csp-"], r"[A-Za-z0-9_-]{22,}+"),
    token("square-token", ["EAAA"], r"[A-Za-z0-9_-]{60,}+"),
    token("atlassian-token", ["ATATT3"], r"[A-Za-z0-9_=-]{100,}+"),
    token("atlassian-token", ["ATBB"], r"[A-Za-z0-9]{32,}+"),
    token("sentry-token", ["sntrys_"], r"[A-Za-z0-9+/=_]{40,}+"),
    token("sentry-token", ["sntryu_"], r"[a-f0-9]{64}"),
    token(
        "doppler-token",
        ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
        r"(?:[a-z0-9_-]{1,30}\.)?[A-Za-z0-9]{40,}+",
    ),
    token("pulumi-token", ["pul-"], r"[a-f0-9]{40}"),
    Rule(
        "terraform-token",
        (
            lazy(
                r"\.atlasv1\.(?<=[A-Za-z0-9]{14}\.atlasv1\.)(?<![A-Za-z0-9]{15}\.atlasv1\.)"
                r"[A-Za-z0-9_=-]{60,}+"
            ),
        ),
        behind(14),
    ),
    token("supabase-token", ["sbp_"], r"[a-f0-9]{40}"),
    token("supabase-token", ["sb_secret_"], r"[A-Za-z0-9_-]{20,}+"),
    token(
        "planetscale-token", ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"], r"[A-Za-z0-9_.-]{32,}+"
    ),
    token("replicate-token", ["r8_"], MIXED + r"[A-Za-z0-9]{37}"),
    token("groq-key", ["gsk_"], r"[A-Za-z0-9]{52}"),
    token("perplexity-key", ["pplx-"], r"[A-Za-z0-9]{48}"),
    token("xai-key", ["xai-"], r"[A-Za-z0-9]{80}"),
    token("langsmith-key", ["lsv2_pt_", "lsv2_sk_"], HEX32 + r"_[a-f0-9]{10}"),
    token("notion-token", ["ntn_"], r"[A-Za-z0-9]{46}"),
    token("notion-token", ["secret_"], MIXED + r"[A-Za-z0-9]{43}"),
    token("airtable-token", ["pat"], r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    token("figma-token", ["figd_"], r"[A-Za-z0-9_-]{40,}+"),
    token("dynatrace-token", ["dt0c01."], r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    token("alibaba-access-key", ["LTAI"], r"[A-Za-z0-9]{12,20}"),
    token("hubspot-token", ["pat-na1-", "pat-eu1-"], UUID),
    token("contentful-token", ["CFPAT-"], r"[A-Za-z0-9_-]{43}"),
    token("circleci-token", ["CCIPAT_"], r"[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    token("flyio-token", ["fo1_"], r"[A-Za-z0-9_-]{43}"),
    token("flyio-token", ["fm2_"], r"[A-Za-z0-9+/=,_-]{50,}+"),
    token("tailscale-key", ["tskey-"], MIXED + r"[A-Za-z0-9-]{20,}+"),
    token("vercel-token", ["vcp_", "vci_", "vca_", "vcr_", "vck_"], MIXED + r"[A-Za-z0-9]{24,}+"),
    token("netlify-token", ["nfp_", "nfc_", "nfo_", "nfu_"], MIXED + r"[A-Za-z0-9]{32,}+"),
    token("cloudflare-key", ["v1.0-"], r"[a-f0-9]{24}-[a-f0-9]{146}"),
    token("buildkite-token", ["bkua_"], r"[a-f0-9]{40}"),
    token("render-key", ["rnd_"], MIXED + r"[A-Za-z0-9]{32,}+"),
    token("sourcegraph-token", ["sgp_"], r"(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}"),
    token("pinecone-key", ["pcsk_"], r"[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,}+"),
    token("tavily-key", ["tvly-"], r"(?:dev-|prod-)?[A-Za-z0-9]{32,}+"),
    token("firecrawl-key", ["fc-"], r"[a-f0-9]{32}(?![A-Za-z0-9])"),
    token("e2b-key", ["e2b_"], r"[a-f0-9]{40}"),
    token("cerebras-key", ["csk-"], r"(?=[a-z]{0,16}+[0-9])[a-z0-9]{40,}+"),
    token("together-key", ["tgp_v1_"], r"[A-Za-z0-9_-]{40,}+"),
    token("resend-key", ["re_"], r"(?=[A-Za-z]{0,8}+[0-9])[A-Za-z0-9]{8}_[A-Za-z0-9]{20,}+"),
    token("jfrog-token", ["AKCp"], r"[A-Za-z0-9]{60,}+"),
    token("jfrog-token", ["cmVmdGtuOjAxOj"], r"[A-Za-z0-9]{40,}+"),
    token("sonarqube-token", ["squ_", "sqp_", "sqa_"], r"[a-f0-9]{40}"),
    token("neon-key", ["napi_"], r"[a-z0-9]{64}"),
    token("tencent-secret-id", ["AKID"], r"[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    token("brevo-key", ["xkeysib-", "xsmtpsib-"], r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    token("typeform-token", ["tfp_"], r"[A-Za-z0-9_-]{40,}+"),
    token("clickup-token", ["pk_"], r"[0-9]{6,10}_[A-Z0-9]{32}"),
    token("fireworks-key", ["fw_"], MIXED + r"[A-Za-z0-9]{24,}+"),
    token("anyscale-key", ["esecret_"], r"[A-Za-z0-9]{24,}+"),
    token("runpod-key", ["rpa_"], r"[A-Z0-9]{40,}+"),
    token("woocommerce-key", ["ck_", "cs_"], r"[a-f0-9]{40}(?![A-Za-z0-9])"),
    token("twitter-bearer-token", ["AAAAAAAAAAAAAAAAAAAAA"], r"[A-Za-z0-9%]{30,}+"),
    token("paypal-token", ["A21AA"], r"[A-Za-z0-9_-]{60,}+"),
    token(
        "braintree-token",
        ["access_token$production$", "access_token$sandbox$"],
        r"[a-z0-9]{16}\$[a-f0-9]{32}",
    ),
    Rule(
        # A Firebase Cloud Messaging server key: 11 characters, `:APA91b`, 134 more.
        "firebase-key",
        (lazy(r":APA91b(?<=[A-Za-z0-9_-]{11}:APA91b)[A-Za-z0-9_-]{100,}+"),),
        behind(11),
    ),
    Rule(
        # An Azure DevOps token of 84 characters holds `AZDO` at its 77th.
        "azure-devops-token",
        (lazy(r"AZDO(?<=[A-Za-z0-9]{76}AZDO)(?<![A-Za-z0-9]{77}AZDO)[A-Za-z0-9]{4}"),),
        behind(76),
    ),
    token("dropbox-token", ["sl."], r"(?=[A-Za-z_.-]{0,16}+[0-9A-Z])[A-Za-z0-9_.-]{130,}+"),
    Rule(
        # Three characters, `8Q~`, then 31 to 34 more.
        "azure-client-secret",
        (lazy(r"8Q~(?<=[A-Za-z0-9_~.-]{3}8Q~)(?<![A-Za-z0-9_~.-]{4}8Q~)[A-Za-z0-9_~.-]{31,34}"),),
        behind(3),
    ),
)
