"""``spark_applicationDetails``: the application a run belongs to, as the JVM agent writes it.

The agent's ``SparkApplicationDetailsFacet`` (``shared/.../facets/SparkApplicationDetailsFacet``)
reads the ``SparkContext``: its master, app name, application id and user, the UI address, and
from the confs the deploy mode (``spark.submit.deployMode``, ``client`` when unset), the driver's
host (``spark.driver.host``), a proxy URL (YARN's web proxy,
``spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param.PROXY_URI_BASES``, else
``spark.ui.reverseProxyUrl`` + ``/proxy/{app id}`` when ``spark.ui.reverseProxy`` is on) and a
history server URL (``spark.yarn.historyServer.address`` + ``/history/{app id}``, with the scheme
of Hadoop's ``yarn.http.policy`` when the address has none). A value that is not known is left
out, as the agent's JSON leaves out a null; under Spark Connect the user and the UI address are
the server's own and are not known to the client.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from openlineage_sdk.spark.platforms._facts import Facts

__all__ = ["FACET_KEY", "application_details"]

FACET_KEY = "spark_applicationDetails"
_YARN_PROXY = (
    "spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param.PROXY_URI_BASES"
)


def _encoded(application_id: str) -> str:
    # java.net.URLEncoder.encode(id, "UTF-8"): an application id is letters, digits, - and _.
    return quote(application_id, safe="*-._").replace("%20", "+")


def _proxy_url(facts: Facts, application_id: str | None) -> str | None:
    yarn = facts.conf(_YARN_PROXY)
    if yarn is not None:
        return yarn
    if (facts.conf("spark.ui.reverseProxy") or "false").strip().lower() != "true":
        return None
    base = facts.conf("spark.ui.reverseProxyUrl")
    if base is None or application_id is None:
        return None
    return f"{base.rstrip('/')}/proxy/{_encoded(application_id)}"


def _history_url(facts: Facts, application_id: str | None) -> str | None:
    server = facts.conf("spark.yarn.historyServer.address")
    if server is None or application_id is None:
        return None
    if not server.startswith("http"):
        # Hadoop's default policy is HTTP_ONLY; HTTPS_ONLY makes it https.
        policy = facts.hadoop_conf("yarn.http.policy") or "HTTP_ONLY"
        server = f"{policy.replace('_ONLY', '').lower()}://{server}"
    return f"{server.rstrip('/')}/history/{_encoded(application_id)}"


def application_details(facts: Facts) -> dict[str, Any]:
    """The fields of ``spark_applicationDetails`` for the driver ``facts`` describe.

    Returns:
        ``master``, ``appName``, ``applicationId``, ``deployMode``, ``driverHost``,
        ``userName``, ``uiWebUrl``, ``proxyUrl``, ``historyUrl``: those that are known.
    """
    application_id = facts.application_id
    fields: dict[str, Any] = {
        "master": facts.master,
        "appName": facts.app_name,
        "applicationId": application_id,
        "deployMode": facts.conf("spark.submit.deployMode") or "client",
        "driverHost": facts.conf("spark.driver.host"),
        "userName": facts.user,
        "uiWebUrl": facts.ui_web_url,
        "proxyUrl": _proxy_url(facts, application_id),
        "historyUrl": _history_url(facts, application_id),
    }
    return {key: value for key, value in fields.items() if value is not None}
