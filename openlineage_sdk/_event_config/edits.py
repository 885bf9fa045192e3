"""An :class:`EventConfig`: what a configuration changes in events, and the editor that does it.

:meth:`EventConfig.apply` gives the event as the configuration wants it sent: ``None`` when a
filter drops it, the event itself when nothing applies, else a new event. An event of the SDK is
edited once, as models: only the objects on the path of a change are copied (the caller's event
is never changed), and a facet the editor builds or changes is read as
:func:`~openlineage_sdk.read_event` would read it in the event's JSON, so the result is what the
JSON round trip of earlier versions gave, without the round trip. Any other event is read first;
one the SDK cannot read (a hand-made object that breaks the spec) is edited as its JSON and sent
as that JSON.

Two configurations combine into one (:meth:`EventConfig.combine`): the client's own, from
``openlineage.yml``, and one compiled from a Spark session's ``spark.openlineage.*`` confs, so
that each event is edited once.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from openlineage_sdk._event_config.git import read_source_code_location
from openlineage_sdk._event_config.rules import (
    JobNameFilter,
    NamespaceResolver,
    SourceCodeLocation,
    Tag,
)
from openlineage_sdk._event_config.tree import EventTree, JsonTree, ModelTree, Place, read_facet

if TYPE_CHECKING:
    from openlineage_sdk.naming._trim import Trimmer
    from openlineage_sdk.transports.base import Emittable

__all__ = ["EventConfig"]

log = logging.getLogger("openlineage_sdk._event_config")

_TRIM_CACHE_SIZE = 4096


@dataclass(frozen=True)
class EventConfig:
    """What a configuration changes in events; see :mod:`openlineage_sdk._event_config`.

    Made by :func:`~openlineage_sdk._event_config.parse_sections` from the configuration's
    sections, or in code (the Spark adapter compiles a session's confs into one).

    Attributes:
        filters: run events of these jobs are dropped.
        run_facets: run facets added to run events that lack them, by key: facet instances,
            or JSON objects with their ``_producer`` and ``_schemaURL``.
        job_facets: job facets added to run and job events that lack them, by key.
        environment_variables: the variables put into the ``environmentVariables`` run facet.
        job_tags: tags of the job's ``tags`` facet (run and job events).
        run_tags: tags of the run's ``tags`` facet (run events).
        source_code_location: the ``sourceCodeLocation`` job facet, from git and these values.
        dataset_name_cuts: expressions whose group ``remove`` is cut out of the names of the
            inputs and outputs of run and job events, in turn.
        reducing: the trimmers of dataset reducing, or ``None`` when it is off.
        resolvers: dataset namespace resolvers; the first that changes a namespace wins.
        disabled_facets: facet keys removed from runs, jobs and datasets, compared without case.

    Raises:
        TypeError: a facet to add is neither a facet of its entity nor a JSON object.
        ValueError: a facet is given under another facet's key, a JSON facet lacks
            ``_producer`` or ``_schemaURL``, or a cut has no group named ``remove``.
    """

    filters: tuple[JobNameFilter, ...] = ()
    run_facets: Mapping[str, Any] = field(default_factory=dict)
    job_facets: Mapping[str, Any] = field(default_factory=dict)
    environment_variables: tuple[str, ...] = ()
    job_tags: tuple[Tag, ...] = ()
    run_tags: tuple[Tag, ...] = ()
    source_code_location: SourceCodeLocation | None = None
    dataset_name_cuts: tuple[re.Pattern[str], ...] = ()
    reducing: tuple[Trimmer, ...] | None = None
    resolvers: tuple[NamespaceResolver, ...] = ()
    disabled_facets: frozenset[str] = frozenset()
    # Names seen and their trimmed form: a column-lineage facet repeats the same input names.
    _trimmed: dict[str, str] = field(default_factory=dict, init=False, compare=False, repr=False)
    # The facets to add, read once as models: (place, key) -> facet.
    _read_facets: dict[tuple[str, str], Any] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for entity, facets in (("run", self.run_facets), ("job", self.job_facets)):
            for key, facet in facets.items():
                _check_added_facet(entity, key, facet)
            object.__setattr__(self, f"{entity}_facets", MappingProxyType(dict(facets)))
        for cut in self.dataset_name_cuts:
            if "remove" not in cut.groupindex:
                raise ValueError(
                    f"dataset name cut {cut.pattern!r} has no group named remove: (?P<remove>...)"
                )
        object.__setattr__(
            self, "disabled_facets", frozenset(name.lower() for name in self.disabled_facets)
        )

    @property
    def changes(self) -> bool:
        """Whether events may be changed (not only dropped by a filter)."""
        return bool(
            self.run_facets
            or self.job_facets
            or self.environment_variables
            or self.job_tags
            or self.run_tags
            or self.source_code_location is not None
            or self.dataset_name_cuts
            or self.reducing is not None
            or self.resolvers
            or self.disabled_facets
        )

    def combine(self, then: EventConfig | None) -> EventConfig:
        """One configuration that edits an event as this one and then ``then`` would.

        Filters, cuts and resolvers of both apply, this one's first; tags of ``then`` replace
        this one's with the same key (compared without case, keeping this one's spelling), as
        they would replace them in the event; a facet both add is this one's, as the first
        added wins; environment variables of both are read, this one's first; disabled facets
        of either are removed, from the facets either added too. Where both set one value
        (source code location), this one's wins, as it was added first; the trimmers of
        reducing are this one's, then ``then``'s.

        Args:
            then: the configuration applied after this one (the client's own, say); ``None``
                leaves this one as it is.
        """
        if then is None:
            return self
        run_facets = dict(self.run_facets)
        for key, facet in then.run_facets.items():
            run_facets.setdefault(key, facet)
        job_facets = dict(self.job_facets)
        for key, facet in then.job_facets.items():
            job_facets.setdefault(key, facet)
        reducing = self.reducing
        if then.reducing is not None:
            reducing = then.reducing if reducing is None else (*reducing, *then.reducing)
        return EventConfig(
            filters=(*self.filters, *then.filters),
            run_facets=run_facets,
            job_facets=job_facets,
            environment_variables=tuple(
                dict.fromkeys((*self.environment_variables, *then.environment_variables))
            ),
            job_tags=_merge_tags(self.job_tags, then.job_tags),
            run_tags=_merge_tags(self.run_tags, then.run_tags),
            source_code_location=self.source_code_location or then.source_code_location,
            dataset_name_cuts=(*self.dataset_name_cuts, *then.dataset_name_cuts),
            reducing=reducing,
            resolvers=(*self.resolvers, *then.resolvers),
            disabled_facets=self.disabled_facets | then.disabled_facets,
        )

    def apply(
        self,
        event: Emittable,
        *,
        producer: str,
        env: Mapping[str, str] | None = None,
    ) -> Emittable | None:
        """The event as the configuration wants it sent, or ``None`` when a filter drops it.

        Args:
            event: any event; it is not changed.
            producer: the ``_producer`` of facets added here.
            env: where environment variables are read (``os.environ`` when ``None``).

        Returns:
            A new event with the changes, ``event`` itself when nothing applies, or ``None``.
        """
        if self.filters:
            name = _run_job_name(event)
            if name is not None and any(f.drops(name) for f in self.filters):
                log.debug("OpenLineage: the run event of job %r is filtered out", name)
                return None
        if not self.changes:
            return event
        from openlineage_sdk._base import OpenLineageModel
        from openlineage_sdk._errors import OpenLineageValidationError
        from openlineage_sdk._read import read_event

        environ = os.environ if env is None else env
        text: str | None = None
        model: Any = event
        if not isinstance(event, OpenLineageModel):
            text = event.to_json()
            try:
                model = read_event(text)
            except ValueError:
                model = None  # not an event the SDK can read: edited as JSON below
        if model is not None:
            try:
                edited = _Editor(self, ModelTree(), producer, environ).edit(model)
            except OpenLineageValidationError:
                # An edit that cannot be read back (a lone surrogate in an environment
                # variable): the event is edited as JSON and sent as that JSON, as before.
                pass
            else:
                return event if edited is model else edited
        data = json.loads(text) if text is not None else model.to_dict()
        if not isinstance(data, dict):
            return event
        edited = _Editor(self, JsonTree(), producer, environ).edit(data)
        if edited is data:
            return event
        return _JsonEvent(json.dumps(edited, separators=(",", ":"), ensure_ascii=False))

    def _facet_to_add(self, tree: EventTree, place: Place, key: str, facet: Any) -> Any:
        """A facet of :attr:`run_facets` or :attr:`job_facets` in the tree's form."""
        if isinstance(tree, ModelTree):
            found = self._read_facets.get((place, key))
            if found is None:
                found = read_facet(
                    place, key, facet if isinstance(facet, Mapping) else facet.to_dict()
                )
                self._read_facets[(place, key)] = found
            return found
        return tree.body(facet) if isinstance(facet, Mapping) else facet.to_dict()

    def _trim(self, name: str) -> str:
        cache = self._trimmed
        trimmed = cache.get(name)
        if trimmed is None:
            from openlineage_sdk.naming._trim import trim_dataset_name

            assert self.reducing is not None
            trimmed = trim_dataset_name(name, self.reducing)
            if len(cache) >= _TRIM_CACHE_SIZE:
                cache.clear()
            cache[name] = trimmed
        return trimmed


def _check_added_facet(entity: str, key: str, facet: Any) -> None:
    from openlineage_sdk._base import FacetModel

    where = f"{entity}_facets[{key!r}]"
    if isinstance(facet, FacetModel):
        kind = type(facet)
        if kind.facet_entity != entity:
            raise TypeError(f"{where}: {kind.__name__} is a {kind.facet_entity} facet")
        if kind.facet_key is not None and kind.facet_key != key:
            raise ValueError(f"{where}: {kind.__name__} is the facet {kind.facet_key!r}")
    elif isinstance(facet, Mapping):
        missing = [name for name in ("_producer", "_schemaURL") if name not in facet]
        if missing:
            raise ValueError(f"{where}: a facet needs {' and '.join(missing)}")
    else:
        raise TypeError(f"{where}: a facet or a JSON object expected, got {type(facet).__name__}")


def _merge_tags(first: Sequence[Tag], then: Sequence[Tag]) -> tuple[Tag, ...]:
    """Tags of ``first`` then ``then``, as applying one list after the other leaves them."""
    if not first or not then:
        return (*first, *then)
    later = {tag.key.lower() for tag in then}
    spelling = {tag.key.lower(): tag.key for tag in first}
    kept = [tag for tag in first if tag.key.lower() not in later]
    return (
        *kept,
        *(replace(tag, key=spelling.get(tag.key.lower(), tag.key)) for tag in then),
    )


class _JsonEvent:
    """An event held as its JSON text."""

    __slots__ = ("_json",)

    def __init__(self, text: str) -> None:
        self._json = text

    def to_json(self) -> str:
        return self._json


def _run_job_name(event: object) -> str | None:
    """The job name when ``event`` is a run event (an SDK event or any object shaped like one)."""
    from openlineage_sdk.models.core import JobEvent, RunEvent

    if isinstance(event, RunEvent):
        return event.job.name
    if isinstance(event, JobEvent):
        return None
    run, job = getattr(event, "run", None), getattr(event, "job", None)
    if run is not None and job is not None:
        name = getattr(job, "name", None)
        return name if isinstance(name, str) else None
    if run is None and job is None and not hasattr(event, "dataset"):
        try:
            data = json.loads(event.to_json())  # type: ignore[attr-defined]
        except Exception:
            return None
        if isinstance(data, dict) and "run" in data and isinstance(data.get("job"), dict):
            name = data["job"].get("name")
            return name if isinstance(name, str) else None
    return None


def _schema_url(class_name: str) -> str:
    from openlineage_sdk.models import facets

    url = getattr(facets, class_name).facet_schema_url
    assert isinstance(url, str)
    return url


class _Editor:
    """Applies an :class:`EventConfig` to one event, in the form ``tree`` edits."""

    def __init__(
        self, config: EventConfig, tree: EventTree, producer: str, env: Mapping[str, str]
    ) -> None:
        self.config = config
        self.tree = tree
        self.producer = producer
        self.env = env
        self.changed = False

    def edit(self, event: Any) -> Any:
        """The edited event, or ``event`` itself when nothing changed."""
        config, tree = self.config, self.tree
        run, job = tree.field(event, "run"), tree.field(event, "job")
        inputs, outputs = tree.field(event, "inputs"), tree.field(event, "outputs")
        dataset = tree.field(event, "dataset")
        is_run = tree.is_node(run) and tree.is_node(job)
        is_job = not is_run and tree.is_node(job)
        if is_run:
            for key, facet in config.run_facets.items():
                run = self._add(run, "run", key, facet)
        if is_run or is_job:
            for key, facet in config.job_facets.items():
                job = self._add(job, "job", key, facet)
        if is_run and config.environment_variables:
            run = self._environment(run)
        if (is_run or is_job) and config.job_tags:
            job = self._tags(job, "job", config.job_tags, "TagsJobFacet")
        if is_run and config.run_tags:
            run = self._tags(run, "run", config.run_tags, "TagsRunFacet")
        if is_run and config.source_code_location is not None:
            job = self._source_code_location(job)
        if (is_run or is_job) and config.dataset_name_cuts:
            inputs = self._each(inputs, self._cut)
            outputs = self._each(outputs, self._cut)
        if is_run and config.reducing is not None:
            inputs = self._reduce(
                inputs,
                "inputFacets",
                "inputDataset",
                "InputSubsetInputDatasetFacet",
                "inputCondition",
            )
            outputs = self._reduce(
                outputs,
                "outputFacets",
                "outputDataset",
                "OutputSubsetOutputDatasetFacet",
                "outputCondition",
            )
        if config.resolvers:
            inputs = self._each(inputs, self._resolve)
            outputs = self._each(outputs, self._resolve)
            if tree.is_node(dataset):
                dataset = self._resolve(dataset)
        if config.disabled_facets:
            if tree.is_node(run):
                run = self._disable(run)
            if tree.is_node(job):
                job = self._disable(job)
            inputs = self._each(inputs, self._disable)
            outputs = self._each(outputs, self._disable)
            if tree.is_node(dataset):
                dataset = self._disable(dataset)
        if not self.changed:
            return event
        before = {
            "run": tree.field(event, "run"),
            "job": tree.field(event, "job"),
            "inputs": tree.field(event, "inputs"),
            "outputs": tree.field(event, "outputs"),
            "dataset": tree.field(event, "dataset"),
        }
        after = {"run": run, "job": job, "inputs": inputs, "outputs": outputs, "dataset": dataset}
        updates = {key: value for key, value in after.items() if value is not before[key]}
        return tree.replaced(event, updates) if updates else event

    # -- helpers

    def _each(self, nodes: Any, edit: Any) -> Any:
        """``nodes`` with ``edit`` applied to each node in it; the same list if none changed."""
        if not isinstance(nodes, list):
            return nodes
        edited = [edit(node) if self.tree.is_node(node) else node for node in nodes]
        if all(new is old for new, old in zip(edited, nodes, strict=True)):
            return nodes
        return edited

    def _new_facet(self, class_name: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """A standard facet's JSON, made by this SDK."""
        return {"_producer": self.producer, "_schemaURL": _schema_url(class_name), **body}

    def _with_facet(
        self, holder: Any, container_key: str, place: Place, key: str, facet: Any
    ) -> Any:
        tree = self.tree
        container = tree.field(holder, container_key)
        self.changed = True
        return tree.replaced(holder, {container_key: tree.with_facet(container, place, key, facet)})

    # -- the rules, in the order they apply

    def _add(self, holder: Any, place: Place, key: str, facet: Any) -> Any:
        """A facet of the configuration, added when the holder has none under its key."""
        if self.tree.has_facet(self.tree.field(holder, "facets"), key):
            return holder
        added = self.config._facet_to_add(self.tree, place, key, facet)
        return self._with_facet(holder, "facets", place, key, added)

    def _environment(self, run: Any) -> Any:
        tree = self.tree
        env = self.env
        names = self.config.environment_variables
        found = [(k, env[k]) for k in names if k in env]
        missing = set(names).difference(k for k, _ in found)
        if missing:
            log.warning(
                "OpenLineage: environment variables configured for the environmentVariables "
                "facet are not set: %s",
                ", ".join(sorted(missing)),
            )
        if not found:
            return run
        current = tree.facet(tree.field(run, "facets"), "environmentVariables")
        body = tree.body(current) if current is not None else None
        existing = list(body.get("environmentVariables") or []) if isinstance(body, dict) else []
        present = {e.get("name") for e in existing if isinstance(e, dict)}
        added = [{"name": k, "value": v} for k, v in found if k not in present]
        content = {"environmentVariables": existing + added}
        facet = (
            {**body, **content}
            if isinstance(body, dict)
            else self._new_facet("EnvironmentVariablesRunFacet", content)
        )
        made = tree.facet_from_json("run", "environmentVariables", facet)
        return self._with_facet(run, "facets", "run", "environmentVariables", made)

    def _tags(self, holder: Any, place: Place, tags: Sequence[Tag], class_name: str) -> Any:
        tree = self.tree
        current = tree.facet(tree.field(holder, "facets"), "tags")
        body = tree.body(current) if current is not None else None
        old = list(body.get("tags") or []) if isinstance(body, dict) else []
        configured = {tag.key.lower() for tag in tags}
        spelling = {
            t["key"].lower(): t["key"]
            for t in old
            if isinstance(t, dict) and isinstance(t.get("key"), str)
        }
        kept = [
            t
            for t in old
            if not (
                isinstance(t, dict)
                and isinstance(t.get("key"), str)
                and t["key"].lower() in configured
            )
        ]
        for tag in tags:
            if tag.key.lower() in spelling:
                log.info("OpenLineage: the configured tag %r replaces the event's own", tag.key)
        added = [
            {
                "key": spelling.get(tag.key.lower(), tag.key),
                "value": tag.value,
                "source": tag.source,
            }
            for tag in tags
        ]
        facet = (
            {**body, "tags": kept + added}
            if isinstance(body, dict)
            else self._new_facet(class_name, {"tags": kept + added})
        )
        return self._with_facet(
            holder, "facets", place, "tags", tree.facet_from_json(place, "tags", facet)
        )

    def _source_code_location(self, job: Any) -> Any:
        values = _SCL_CACHE.get(self.config.source_code_location, self.env)
        if not values or self.tree.has_facet(self.tree.field(job, "facets"), "sourceCodeLocation"):
            return job
        facet = self._new_facet("SourceCodeLocationJobFacet", dict(values))
        made = self.tree.facet_from_json("job", "sourceCodeLocation", facet)
        return self._with_facet(job, "facets", "job", "sourceCodeLocation", made)

    def _cut(self, dataset: Any) -> Any:
        name = self.tree.field(dataset, "name")
        if not isinstance(name, str):
            return dataset
        cut = name
        for pattern in self.config.dataset_name_cuts:
            match = pattern.search(cut)
            if match is not None and match.group("remove") is not None:
                start, end = match.span("remove")
                cut = cut[:start] + cut[end:]
        if cut == name:
            return dataset
        self.changed = True
        return self.tree.replaced(dataset, {"name": cut})

    def _reduce(
        self, datasets: Any, io_key: str, place: Place, subset_class: str, condition_key: str
    ) -> Any:
        tree = self.tree
        if not isinstance(datasets, list) or not datasets:
            return datasets
        changed_before = self.changed
        self.changed = False
        if io_key == "outputFacets":
            datasets = self._each(datasets, self._trim_column_lineage)
        merged: list[tuple[Any, set[str]]] = []
        kept: list[Any] = []  # entries that are not datasets, kept as they are
        for dataset in datasets:
            original = tree.field(dataset, "name") if tree.is_node(dataset) else None
            if not isinstance(original, str):
                kept.append(dataset)
                continue
            trimmed = self.config._trim(original)
            if trimmed != original:
                dataset = tree.replaced(dataset, {"name": trimmed})
                self.changed = True
            same = next(
                (
                    entry
                    for entry in merged
                    if tree.field(entry[0], "namespace") == tree.field(dataset, "namespace")
                    and tree.field(entry[0], "name") == trimmed
                    and all(
                        (tree.json(tree.field(entry[0], k)) or {})
                        == (tree.json(tree.field(dataset, k)) or {})
                        for k in ("facets", "inputFacets", "outputFacets")
                    )
                ),
                None,
            )
            if same is not None:
                self.changed = True
                if trimmed != original:
                    same[1].add(original)
            else:
                merged.append((dataset, {original} if trimmed != original else set()))
        changed_here = self.changed
        self.changed = changed_before or changed_here
        if not changed_here:
            return datasets
        result: list[Any] = []
        for dataset, originals in merged:
            if originals:
                facet = self._new_facet(
                    subset_class,
                    {condition_key: {"type": "location", "locations": sorted(originals)}},
                )
                made = tree.facet_from_json(place, "subset", facet)
                dataset = self._with_facet(dataset, io_key, place, "subset", made)
            result.append(dataset)
        return result + kept

    def _trim_column_lineage(self, dataset: Any) -> Any:
        tree = self.tree
        facets = tree.field(dataset, "facets")
        lineage = tree.facet(facets, "columnLineage")
        body = tree.body(lineage) if lineage is not None else None
        if not isinstance(body, dict):
            return dataset
        entries: list[Any] = []
        for column in (body.get("fields") or {}).values():
            if isinstance(column, dict):
                entries.extend(column.get("inputFields") or [])
        entries.extend(body.get("dataset") or [])
        trimmed_any = False
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                trimmed = self.config._trim(entry["name"])
                if trimmed != entry["name"]:
                    entry["name"] = trimmed
                    trimmed_any = True
        if not trimmed_any:
            return dataset
        made = tree.facet_from_json("dataset", "columnLineage", body)
        return self._with_facet(dataset, "facets", "dataset", "columnLineage", made)

    def _resolve_namespace(self, namespace: str) -> str:
        for resolver in self.config.resolvers:
            resolved = resolver.resolve(namespace)
            if resolved != namespace:
                return resolved
        return namespace

    def _resolve(self, dataset: Any) -> Any:
        tree = self.tree
        namespace = tree.field(dataset, "namespace")
        if isinstance(namespace, str):
            resolved = self._resolve_namespace(namespace)
            if resolved != namespace:
                dataset = tree.replaced(dataset, {"namespace": resolved})
                self.changed = True
        facets = tree.field(dataset, "facets")
        symlinks = tree.facet(facets, "symlinks")
        body = tree.body(symlinks) if symlinks is not None else None
        if not isinstance(body, dict):
            return dataset
        resolved_any = False
        for identifier in body.get("identifiers") or []:
            if isinstance(identifier, dict) and isinstance(identifier.get("namespace"), str):
                resolved = self._resolve_namespace(identifier["namespace"])
                if resolved != identifier["namespace"]:
                    identifier["namespace"] = resolved
                    resolved_any = True
        if not resolved_any:
            return dataset
        made = tree.facet_from_json("dataset", "symlinks", body)
        return self._with_facet(dataset, "facets", "dataset", "symlinks", made)

    def _disable(self, holder: Any) -> Any:
        tree = self.tree
        off = self.config.disabled_facets
        for key in ("facets", "inputFacets", "outputFacets"):
            container = tree.field(holder, key)
            # Without case: OPENLINEAGE__FACETS__<NAME>__DISABLED arrives lower-cased.
            gone = [name for name in tree.facet_keys(container) if name.lower() in off]
            if gone:
                holder = tree.replaced(holder, {key: tree.without_facets(container, gone)})
                self.changed = True
        return holder


class _SourceCodeCache:
    """Git is read once per configuration, as the official client does (a cached property)."""

    def __init__(self) -> None:
        self._values: dict[int, tuple[SourceCodeLocation, dict[str, str] | None]] = {}

    def get(
        self, configured: SourceCodeLocation | None, env: Mapping[str, str]
    ) -> dict[str, str] | None:
        if configured is None:
            return None
        entry = self._values.get(id(configured))
        if entry is None or entry[0] is not configured:
            entry = (configured, read_source_code_location(configured, env))
            self._values[id(configured)] = entry
        return entry[1]


_SCL_CACHE = _SourceCodeCache()
