"""detect-secrets' plugins, loaded once on first use (importing them costs ~0.2 s).

They run without settings, git or network: no plugin ``verify`` is ever called, and their logger is silenced.
The keyword detector's patterns and three value plugins' (OpenAI, JWT, npm) run in their linear-time forms
(``linear``): as written they backtrack quadratically on text an adversary can shape.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from . import _detect
from .gates import filtered, unfiltered
from .linear import keyword_maps, linear_plugins

__all__ = ["plugins", "unfiltered", "filtered"]


def plugins() -> tuple[Any, ...]:
    """``(value plugins, keyword detector, its pattern maps, base64 and hex entropy measures)``, filtered or not."""
    return _suite(filtered())


@lru_cache(maxsize=2)
def _suite(gated: bool) -> tuple[Any, ...]:
    """detect-secrets' value plugins (IP addresses and Artifactory's short ``AP…`` patterns are left out:
    they match ordinary identifiers; so is basic auth, whose password ends at a URL's first ``@``: ``text``'s own
    URL rule reads it to the last), its keyword detector and its entropy measures."""
    _detect.load()
    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)
    from detect_secrets.plugins import (
        aws,
        azure_storage_key,
        cloudant,
        discord,
        github_token,
        gitlab_token,
        ibm_cloud_iam,
        ibm_cos_hmac,
        jwt,
        mailchimp,
        npm,
        openai,
        pypi_token,
        sendgrid,
        slack,
        softlayer,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )
    from detect_secrets.plugins.keyword import (
        CONFIG_DENYLIST_REGEX_TO_GROUP,
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        KeywordDetector,
    )

    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)
    value_plugins = linear_plugins(
        (
            aws.AWSKeyDetector(),
            azure_storage_key.AzureStorageKeyDetector(),
            cloudant.CloudantDetector(),
            discord.DiscordBotTokenDetector(),
            github_token.GitHubTokenDetector(),
            gitlab_token.GitLabTokenDetector(),
            ibm_cloud_iam.IbmCloudIamDetector(),
            ibm_cos_hmac.IbmCosHmacDetector(),
            jwt.JwtTokenDetector(),
            mailchimp.MailchimpDetector(),
            npm.NpmDetector(),
            openai.OpenAIDetector(),
            pypi_token.PypiTokenDetector(),
            sendgrid.SendGridDetector(),
            slack.SlackDetector(),
            softlayer.SoftlayerDetector(),
            square_oauth.SquareOAuthDetector(),
            stripe.StripeDetector(),
            telegram_token.TelegramBotTokenDetector(),
            twilio.TwilioKeyDetector(),
        ),
        gated=gated,
    )
    keyword = KeywordDetector()
    maps = keyword_maps((CONFIG_DENYLIST_REGEX_TO_GROUP, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP), gated=gated)
    return value_plugins, keyword, maps, Base64HighEntropyString(), HexHighEntropyString()
