"""What the configuration does to events as they leave the client.

The official client's ``filters``, ``tags``, ``facets`` and ``dataset`` sections, and two
settings of the Java client and JVM agent (dataset namespace resolvers, disabling a facet by
name), read by :func:`parse_sections` (:mod:`.sections`) into an :class:`EventConfig`
(:mod:`.edits`) and applied by :meth:`EventConfig.apply` in :meth:`OpenLineage.emit
<openlineage_sdk.client.OpenLineage.emit>`, which the run lifecycle and the Spark adapter go
through too. The Spark adapter compiles a session's ``spark.openlineage.*`` confs into an
:class:`EventConfig` of its own (facets added when absent, tags of source ``SPARK``, a cut of
dataset names, disabled facets) and combines it with the client's (:meth:`EventConfig.combine`,
:meth:`OpenLineage.with_event_config <openlineage_sdk.client.OpenLineage.with_event_config>`),
so each event is edited once.

Nothing configured costs nothing: :func:`parse_sections` returns ``None`` and ``emit`` skips this
package. When something is configured, a run event that a filter drops is dropped before any
work; any other change copies only the parts of the event it changes, so the caller's own event
object is never changed (the official client changes it in place).

The rules, as the official client 1.54.0 has them unless said otherwise:

* ``filters``: ``{type: exact, match: NAME}`` drops run events whose job name is ``NAME``;
  ``{type: regex, regex: RE}`` drops those whose job name matches ``RE`` from its start
  (``re.match``). Job and dataset events are never filtered.
* ``tags``: ``job`` tags go to the job's ``tags`` facet of run and job events, ``run`` tags to
  the run's ``tags`` facet of run events, with source ``USER``. A configured tag replaces a tag
  of the event with the same key compared without case, keeping the event's spelling of the
  key; the event's other tags stay, first. (The official client also adds an
  ``openlineage_client_version`` run tag to every run event; this SDK does not: the event's
  ``producer`` already names the library and its version.)
* ``facets.environment_variables``: the named variables that are set go into the
  ``environmentVariables`` run facet of run events, after the ones the event already carries,
  in the configured order (the official client uses the environment's order); a variable the
  event already has keeps the event's value. They are read at each emit, as the official
  client does.
* ``facets.source_code_location``: off by default; when ``disabled: false``, run events get a
  ``sourceCodeLocation`` job facet (``type: git``) with the ``origin`` remote, the commit, the
  branch and a tag pointing at it, read from the ``.git`` folder above the working directory
  (worktrees included), and the pull-request number from the CI's variables (GitLab, Bitbucket,
  Azure Pipelines, GitHub Actions). Configured values win; nothing is added without a URL, and
  an event that has the facet keeps its own.
* ``dataset.reducing_enabled``: input and output names of run events are trimmed with
  :func:`openlineage_sdk.naming.trim_dataset_name` (minus ``disabled_trimmers``, plus
  ``extra_trimmers``); datasets left with the same namespace, name and facets are merged into
  one, which gets a ``subset`` facet listing the original names. Column-lineage input names of
  outputs are trimmed too.
* ``dataset.namespaceResolvers`` (Java client): ``hostList``, ``pattern`` and ``patternGroup``
  resolvers map a dataset namespace (``kafka://broker-3.prod:9092``) to a logical one; the first
  resolver that changes a namespace wins. They apply to every dataset of every event and to the
  namespaces in ``symlinks`` facets.
* ``facets.<name>.disabled: true`` (Java client, JVM agent): the facet ``<name>`` is removed
  from runs, jobs and datasets (``facets: {spark: {logicalPlan: {disabled: true}}}`` removes
  ``spark.logicalPlan``); ``facets.disabled: [a; b]``, the older form, works too. Names are
  compared without case, since ``OPENLINEAGE__FACETS__<NAME>__DISABLED`` arrives lower-cased.
"""

from openlineage_sdk._event_config.edits import EventConfig
from openlineage_sdk._event_config.git import read_source_code_location
from openlineage_sdk._event_config.rules import (
    JobNameFilter,
    NamespaceResolver,
    SourceCodeLocation,
    Tag,
)
from openlineage_sdk._event_config.sections import SectionError, did_you_mean, parse_sections

__all__ = [
    "EventConfig",
    "JobNameFilter",
    "NamespaceResolver",
    "SectionError",
    "SourceCodeLocation",
    "Tag",
    "did_you_mean",
    "parse_sections",
    "read_source_code_location",
]
