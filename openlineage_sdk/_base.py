"""Hand-written base classes of every generated model.

(No ``from __future__ import annotations`` here: pydantic evaluates the annotations of every base
class again for each model class it creates, and string annotations would cost a ``compile()``
each time, for every one of the ~60 generated classes at import.)

The generated classes in :mod:`openlineage_sdk.models` inherit from these (codegen wires them in
with datamodel-code-generator's ``base-class`` and ``base-class-map`` options). Everything that is
policy rather than schema lives here, once:

* the pydantic configuration: unknown fields are kept (``extra="allow"``), Python names and JSON
  names are both accepted, JSON names are written;
* what "unset" means: a field given as ``None`` when building in code is treated as absent, so it
  is not written as ``null``; a field read as ``null`` from JSON is written back as ``null``;
  pinned defaults (a facet's ``_schemaURL``, an event's ``schemaURL``, the producer) are written;
* the facet class metadata (key, entity, pinned schema URL);
* the mapping-style access of facet containers (``facets["parent"]``).
"""

from collections.abc import Callable, ItemsView, KeysView, ValuesView
from typing import TYPE_CHECKING, Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticUndefined, SchemaValidator
from typing_extensions import Self

from openlineage_sdk._errors import OpenLineageValidationError, problems_from_pydantic
from openlineage_sdk._facet_rules import (
    ENTITY_OF_BASE,
    FacetEntity,
    check_class_name,
    check_key,
    check_schema_url,
    expected_class_name,
    standard_facet_keys,
)
from openlineage_sdk._freeform_checks import Checker, accept_json_extras, refusal, value_checker
from openlineage_sdk._json import CheckedWhenBuilt, find_unwritable, is_clean
from openlineage_sdk._types import READ_CONTEXT_KEY as _READ_KEY

__all__ = [
    "PRODUCER",
    "FacetContainer",
    "FacetEntity",
    "FacetModel",
    "OpenLineageModel",
]

PRODUCER: Final = "https://github.com/openlineage-sdk/openlineage-sdk"
"""The producer URI written by default into events and facets built with this SDK."""

# The module of the generated facet bases (the classes ENTITY_OF_BASE names).
_BASES_MODULE: Final = "openlineage_sdk.models.base"
_GENERATED_PACKAGE: Final = "openlineage_sdk.models."


def _check_custom_facet(cls: "type[FacetModel]") -> None:
    """Apply the custom facet naming rules to a facet class as it is defined.

    Raises:
        TypeError: a rule is broken; the message names the expected key and class name.
    """
    key = cls.facet_key
    entity = cls.facet_entity
    assert key is not None
    if entity is None:
        raise TypeError(
            f"{cls.__name__}: a facet extends RunFacet, JobFacet, DatasetFacet, "
            "InputDatasetFacet or OutputDatasetFacet"
        )
    problems = [
        *check_key(key, standard_facet_keys()),
        *check_class_name(cls.__name__, key, entity),
    ]
    if cls.facet_schema_url is None:
        problems.append(
            f"no pinned schema URL: declare 'schema_url: FacetSchemaURL = \"<$id>#/$defs/"
            f"{expected_class_name(key, entity)}\"'"
        )
    else:
        problems.extend(check_schema_url(cls.facet_schema_url, cls.__name__))
    if problems:
        raise TypeError(f"custom facet {cls.__name__} (key {key!r}): " + "; ".join(problems))


def _check_extra(extra: dict[str, Any]) -> None:
    """Refuse an extra field that would not be written as given (see :mod:`openlineage_sdk._json`).

    Raises:
        ValidationError: located at the offending value (pydantic-core puts the location of the
            object in front), with the ``openlineage_json`` error kind.
    """
    if is_clean(extra, models=True):
        return
    found = find_unwritable(extra, models=True)
    if found is not None:
        raise refusal(*found)


# Per model class, what model_post_init needs besides the values: the fields with a default
# that is written, the declared fields (any other name set is an extra field), and the declared
# fields whose values pydantic stores without looking inside (records with keys of their own,
# values typed Any), with the check of each. Worked out once per class.
_Plan = tuple[frozenset[str], frozenset[str], tuple[tuple[str, str, Checker], ...]]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type["OpenLineageModel"]) -> _Plan:
    checks = []
    for name, field in cls.model_fields.items():
        check = value_checker(field.annotation)
        if check is not None:
            checks.append((name, field.alias or name, check))
    plan = (cls.__openlineage_written_defaults__, frozenset(cls.model_fields), tuple(checks))
    _PLANS[cls] = plan
    return plan


class OpenLineageModel(BaseModel, CheckedWhenBuilt):
    """Base of every generated OpenLineage model: events, runs, jobs, datasets and facets."""

    model_config = ConfigDict(
        extra="allow",
        # Types are checked, not converted: "5" is not an integer and 5.0 is not a string.
        strict=True,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        # Building validators for ~60 classes at import would cost more than the rest of the
        # import; they are built on first use instead.
        defer_build=True,
        protected_namespaces=(),
        # What would be written changed is refused where it is given: NaN and Infinity (JSON
        # has no such numbers) and text with a lone surrogate (UTF-8 cannot encode it; any
        # length limit makes pydantic-core look at the text, which costs next to nothing).
        allow_inf_nan=False,
        str_max_length=1 << 62,
    )

    # Fields with a non-None default that are written even when not passed (computed per class).
    __openlineage_written_defaults__: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__openlineage_written_defaults__ = frozenset(
            name
            for name, field in cls.model_fields.items()
            if field.default is not None and field.default is not PydanticUndefined
        )
        # Before pydantic builds the validator (on first use): records check their extra keys.
        for field in cls.model_fields.values():
            accept_json_extras(field.annotation)

    def model_post_init(self, context: Any, /) -> None:
        """Decide what counts as set (see the module docstring); reading keeps what was given."""
        if context is not None and context.get(_READ_KEY):
            self._check_read()
            return
        # Runs once for every object built, so it is kept to the plainest code, which measured
        # fastest (each attribute read of self is slow too: pydantic's __getattr__ keeps the
        # interpreter from taking its quick path). A loop over the few fields given looks for
        # None by identity (``None in ...`` would call each nested model's __eq__). Extra fields
        # are in fields_set but not in __dict__: their lookup gives fields_set.
        fields_set = self.__pydantic_fields_set__
        values = self.__dict__
        for name in fields_set:
            if values.get(name, fields_set) is None:
                fields_set.difference_update(
                    [name for name in fields_set if values.get(name, fields_set) is None]
                )
                break
        written, declared, checks = _PLANS.get(type(self)) or _plan(type(self))
        if written:
            fields_set.update(written)
        if not fields_set <= declared:  # extra fields were given
            _check_extra(self.__pydantic_extra__ or {})
        for name, alias, check in checks:
            value = values.get(name)
            if value is not None:
                found = check(value)
                if found is not None:
                    raise refusal((alias, *found[0]), found[1])

    def _check_read(self) -> None:
        """Refuse an object read under the reading context that breaks a rule of its own."""

    if not TYPE_CHECKING:

        @classmethod
        def model_rebuild(
            cls,
            *,
            force: bool = False,
            raise_errors: bool = True,
            _parent_namespace_depth: int = 2,
            _types_namespace: Any = None,
        ) -> Any:
            # A rebuilt class has a new validator: constructors must not keep using the old one.
            _VALIDATE.pop(cls, None)
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                # The caller's namespace (for names in annotations) is one frame further away.
                _parent_namespace_depth=_parent_namespace_depth + 1
                if _parent_namespace_depth > 0
                else _parent_namespace_depth,
                _types_namespace=_types_namespace,
            )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form: JSON names, fields that were never set left out.

        Raises:
            pydantic_core.PydanticSerializationError: a value (for example an extra field
                holding an arbitrary object) cannot be written as JSON.
        """
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def to_json(self) -> str:
        """Return compact JSON (no spaces), as OpenLineage backends receive it.

        Raises:
            pydantic_core.PydanticSerializationError: a value cannot be written as JSON.
        """
        # warnings=False: the values were checked when the object was built or read; skipping the
        # serializer's own type re-checks makes writing about a fifth faster. What
        # model_dump_json() does, without its Python frame.
        return self.__pydantic_serializer__.to_json(
            self, by_alias=True, exclude_unset=True, warnings=False
        ).decode()


if not TYPE_CHECKING:
    # Building a model in code raises OpenLineageValidationError, whose message names each
    # JSON path and rule ("rowCount: expected an integer, got 'abc'"). A metaclass __call__ does
    # it rather than an __init__ override, which would make pydantic call __init__ for every
    # nested object it validates (and lose the reading context). Type checkers keep seeing
    # pydantic's own constructor signatures: the hook exists at run time only.

    _PYDANTIC_INIT = BaseModel.__init__
    # Per class, its compiled validator's validate_python, once the class is built: reading
    # the class's attributes is slow (pydantic's metaclass has a __getattr__), and an event is
    # some 25 objects. model_rebuild() forgets it (see OpenLineageModel.model_rebuild).
    _VALIDATE: dict[type, Callable[[dict[str, Any]], Any]] = {}

    class _CheckedModelMetaclass(type(BaseModel)):
        def __call__(cls, /, *args: Any, **kwargs: Any) -> Any:
            try:
                validate = _VALIDATE.get(cls)
                if validate is not None and not args:
                    return validate(kwargs)
                if args or cls.__init__ is not _PYDANTIC_INIT:
                    return super().__call__(*args, **kwargs)
                # What BaseModel.__init__ does, without the two Python frames of type.__call__
                # and __init__.
                validator = cls.__pydantic_validator__
                if type(validator) is SchemaValidator:  # built, not a stand-in until first use
                    _VALIDATE[cls] = validator.validate_python
                return validator.validate_python(kwargs)
            except ValidationError as exc:
                raise OpenLineageValidationError(
                    f"invalid {cls.__name__}", problems_from_pydantic(exc, model=cls)
                ) from None

    OpenLineageModel.__class__ = _CheckedModelMetaclass


class FacetModel(OpenLineageModel):
    """Base of every facet. A facet class knows its key, its entity and its pinned schema URL.

    ``facet_key`` is the key the facet is stored under (``"parent"``), ``facet_entity`` what it
    attaches to (``"run"``, ``"job"``, ``"dataset"``, ``"inputDataset"``, ``"outputDataset"``) and
    ``facet_schema_url`` the immutable URL written as ``_schemaURL`` (the schema's ``$id`` plus
    ``#/$defs/<Name>``). The generic entity bases (``RunFacet``...) have no key and no URL.
    """

    facet_key: ClassVar[str | None] = None
    facet_entity: ClassVar[FacetEntity | None] = None
    facet_schema_url: ClassVar[str | None] = None
    # The key a class declared itself (class keywords prefix= and name=), if any.
    __openlineage_declared_key__: ClassVar[str | None] = None

    def __init_subclass__(
        cls, *, prefix: str | None = None, name: str | None = None, **kwargs: Any
    ) -> None:
        """Declare a custom facet's key: ``class MyCoCostsRunFacet(RunFacet, prefix="myCo", name="costs")``."""
        super().__init_subclass__(**kwargs)
        if prefix is None and name is None:
            cls.__openlineage_declared_key__ = None
        elif prefix is None or name is None:
            raise TypeError(
                f"{cls.__name__}: declare both prefix= and name= (the key is {{prefix}}_{{name}})"
            )
        else:
            cls.__openlineage_declared_key__ = f"{prefix}_{name}"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        inherited_key = cls.facet_key
        for klass in cls.__mro__:
            if klass.__module__ == _BASES_MODULE and klass.__name__ in ENTITY_OF_BASE:
                cls.facet_entity = ENTITY_OF_BASE[klass.__name__]
                break
        extra = cls.model_config.get("json_schema_extra")
        generated_key = extra.get("facetKey") if isinstance(extra, dict) else None
        # __init_subclass__ has set the class's own declared key (None when it declares none).
        declared = cls.__openlineage_declared_key__
        key = declared or generated_key
        cls.facet_key = key if isinstance(key, str) else None
        url_field = cls.model_fields.get("schema_url")
        default = url_field.default if url_field is not None else None
        cls.facet_schema_url = default if isinstance(default, str) else None
        if (
            not cls.__module__.startswith(_GENERATED_PACKAGE)
            and cls.facet_key is not None
            and (declared or cls.facet_key != inherited_key)
        ):
            _check_custom_facet(cls)

    def _check_read(self) -> None:
        # The spec requires _producer and _schemaURL on every facet. Building fills them from the
        # class defaults; a facet *read* without them breaks its schema, so it fails here and
        # read_event keeps it as a generic facet with exactly the fields it carried.
        fields_set = self.__pydantic_fields_set__
        missing = [
            alias
            for name, alias in (("producer", "_producer"), ("schema_url", "_schemaURL"))
            if name not in fields_set
        ]
        if missing:
            raise ValueError(f"missing required facet field(s): {', '.join(missing)}")


class FacetContainer(OpenLineageModel):
    """A typed map of facets keyed by facet key, such as ``Run.facets``.

    Standard facets are attributes typed with their class (``run.facets.parent`` is a
    ``ParentRunFacet``); every key, standard or not, is also reachable by its JSON key:
    ``facets["parent"]``, ``facets.get("myCo_costs")``, ``"parent" in facets``, ``facets.items()``.
    Keys the SDK does not know are kept as generic facets of the container's entity.
    """

    # JSON key -> Python attribute name of the declared facet fields (computed per class).
    __openlineage_keys__: ClassVar[dict[str, str]] = {}
    #: The entity's base facet class: what the container holds under any key it does not declare
    #: (set by each entity's container base in openlineage_sdk.models.containers).
    generic_facet: ClassVar[type[FacetModel]]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__openlineage_keys__ = {
            (field.alias or name): name for name, field in cls.model_fields.items()
        }

    @classmethod
    def of(cls, *facets: "FacetModel") -> Self:
        """Build a container from facet instances, each stored under its own ``facet_key``.

        Raises:
            TypeError: a facet has no key (a generic facet) or belongs to another entity (a
                ``ParentRunFacet`` given to ``DatasetFacets``).
        """
        entity = cls.generic_facet.facet_entity
        data: dict[str, FacetModel] = {}
        for facet in facets:
            kind = type(facet)
            if kind.facet_key is None:
                raise TypeError(f"{kind.__name__} has no facet key; put it in the container by key")
            if kind.facet_entity != entity:
                raise TypeError(
                    f"{kind.__name__} is a {kind.facet_entity} facet; "
                    f"{cls.__name__} holds {entity} facets"
                )
            data[kind.facet_key] = facet
        return cls.model_validate(data)

    def _present(self) -> dict[str, Any]:
        present: dict[str, Any] = {}
        values = self.__dict__
        for key, name in self.__openlineage_keys__.items():
            value = values.get(name)
            if value is not None:
                present[key] = value
        if self.__pydantic_extra__:
            present.update(self.__pydantic_extra__)
        return present

    def __getitem__(self, key: str) -> Any:
        name = self.__openlineage_keys__.get(key)
        if name is not None:
            value = self.__dict__.get(name)
            if value is not None:
                return value
        extra = self.__pydantic_extra__
        if extra is not None and key in extra:
            return extra[key]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        """Return the facet stored under ``key``, or ``default``."""
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self._present())

    def keys(self) -> KeysView[str]:
        """The facet keys present, standard and custom."""
        return self._present().keys()

    def values(self) -> ValuesView[Any]:
        """The facets present."""
        return self._present().values()

    def items(self) -> ItemsView[str, Any]:
        """``(key, facet)`` pairs of the facets present."""
        return self._present().items()
