"""Kubernetes value types every config section shares, each defined once and checked the way the API server does.

Label keys and values, quantities, taints, tolerations and label selectors appear in the AKS, ACK, ACS, Kueue and
queue sections alike; checking them here once means a bad value fails ``pulumi preview`` with its key, whichever
section it is in, instead of failing ``pulumi up`` halfway through.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, model_validator

from components.config.base import DNS1123_SUBDOMAIN, ConfigModel, RuleViolation
from components.config.rules import rule

_LABELS_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"
_QUANTITY_URL = "https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go"
_SELECTOR_URL = "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/label-selector/"
_YAML_URL = "https://yaml.org/spec/1.2.2/"

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_QUALIFIED_NAME = re.compile(rf"(?:(?P<prefix>{DNS1123_SUBDOMAIN[1:-1]})/)?(?P<name>{_NAME})")
_LABEL_VALUE = re.compile(rf"({_NAME})?")
QUALIFIED_NAME_RULE = "a qualified name such as cpu, agentpool or nvidia.com/gpu (optional DNS prefix, name ≤ 63)"
LABEL_VALUE_RULE = "a label value: at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends"


def is_qualified_name(text: str) -> bool:
    """Kubernetes' qualified name: the form of label, annotation, taint and resource keys."""
    match = _QUALIFIED_NAME.fullmatch(text)
    return match is not None and len(match["name"]) <= 63 and len(match["prefix"] or "") <= 253


def is_label_value(text: str) -> bool:
    """A label value (empty allowed): also the form of taint, toleration and selector values."""
    return len(text) <= 63 and _LABEL_VALUE.fullmatch(text) is not None


@rule("kube.qualified-name", source=_LABELS_URL)
def _qualified_name(text: str) -> str:
    """A label, annotation, taint or resource key of the qualified-name form (optional DNS-subdomain prefix and ``/``, a
    name of at most 63 characters), because the API server refuses any other."""
    if not is_qualified_name(text):
        raise ValueError(f"write {QUALIFIED_NAME_RULE}")
    return text


@rule("kube.label-value", source=_LABELS_URL)
def _label_value(text: str) -> str:
    """A label value of at most 63 characters, alphanumeric at both ends (or empty), because the API server refuses any
    other."""
    if not is_label_value(text):
        raise ValueError(f"write {LABEL_VALUE_RULE}")
    return text


@rule("kube.labels", source=_LABELS_URL)
def _labels(labels: dict[str, str]) -> dict[str, str]:
    """A label map of qualified-name keys and valid values, because the API server refuses any other; checked entry
    by entry, so the error names the label key rather than the whole map."""
    for key, value in labels.items():
        if not is_qualified_name(key):
            raise RuleViolation(key, key, f"a label key is {QUALIFIED_NAME_RULE}")
        if not is_label_value(value):
            raise RuleViolation(key, value, f"write {LABEL_VALUE_RULE}")
    return labels


LabelKey = Annotated[str, AfterValidator(_qualified_name)]
"""A label, annotation, taint or resource key: optional DNS-subdomain prefix and ``/``, a name of at most 63."""
LabelValue = Annotated[str, AfterValidator(_label_value)]
"""A label value: at most 63 characters, alphanumeric at both ends, or empty."""
Labels = Annotated[dict[str, str], AfterValidator(_labels)]
"""A label map (node labels, pod labels, ``nodeSelector``, ``matchLabels``); errors name the offending label."""

_QUANTITY = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[eE][+-]?\d+|[numkMGTPE])?")
"""The quantity grammar of ``resource.ParseQuantity``
(https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go): the client's
``parse_quantity`` computes the value but also takes forms the API server refuses (``2 Gi``, ``2K``, ``1e3m``)."""
_QUANTITY_RULE = "write a Kubernetes quantity such as 2, 500m or 200Gi"


_SUFFIX_FACTORS = {
    **{s: Decimal(1024) ** (i + 1) for i, s in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))},
    **{s: Decimal(10) ** e for s, e in (("n", -9), ("u", -6), ("m", -3), ("", 0), ("k", 3), ("M", 6), ("G", 9))},
    **{s: Decimal(10) ** e for s, e in (("T", 12), ("P", 15), ("E", 18))},
}
"""The suffixes of ``resource.ParseQuantity``: binary (Ki ... Ei) and decimal SI (n ... E)."""

QUANTITY_MAX = Decimal(2**63 - 1)
"""The largest quantity Kubernetes holds, in base units: it caps a binary one there and reads every quantity as a
64-bit integer (``Quantity.Value``, ``MilliValue``), which silently overflows above it
(https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go); it also takes the exponent of
``1e3`` as a 32-bit integer, so a huge one wraps around (``suffix.go`` beside it)."""
QUANTITY_MIN = Decimal("1e-9")
"""The smallest quantity above zero Kubernetes holds, ``1n``: it rounds anything smaller up to it (same source)."""
QUANTITY_RANGE_RULE = "a quantity must be 0 or lie between 1n and 9223372036854775807 (2^63-1), as Kubernetes holds it"


class QuantityOutOfRange(ValueError):
    """A well-formed quantity whose value Kubernetes cannot hold (:data:`QUANTITY_MIN` .. :data:`QUANTITY_MAX`)."""

    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is out of range; {QUANTITY_RANGE_RULE}")


def quantity_value(text: str) -> Decimal:
    """The value of a Kubernetes quantity in base units, cores or bytes (``500m`` -> 0.5, ``2Gi`` -> 2147483648).

    Computed here rather than with the Kubernetes client's ``parse_quantity``: importing that client costs a third of
    the program's start-up. The magnitude is judged from the exponents before any arithmetic, so ``1e1000000`` is
    :class:`QuantityOutOfRange`, not a decimal overflow; every value returned is 0 or within Kubernetes' range, so
    sums, products and quotients of a few of them stay finite."""
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise ValueError(f"{text!r} is not a Kubernetes quantity; write it as 2, 500m, 512Mi or 4Gi")
    suffix = match[3] or ""
    factor = _SUFFIX_FACTORS.get(suffix)
    try:  # a decimal exponent (e3, E-3) stays in the text: Decimal reads it without computing 10**exponent
        number = Decimal(text if factor is None else text[: len(text) - len(suffix)])
    except InvalidOperation:  # an exponent beyond Decimal's (about 10**18) is beyond every limit above
        raise QuantityOutOfRange(text) from None
    if not number:
        return Decimal(0)
    magnitude = number.adjusted() + (factor.adjusted() if factor is not None else 0)
    if not QUANTITY_MIN.adjusted() - 1 <= magnitude <= QUANTITY_MAX.adjusted() + 1:
        raise QuantityOutOfRange(text)
    value = number * factor if factor is not None else +number  # unary plus rounds as a product does
    if not QUANTITY_MIN <= abs(value) <= QUANTITY_MAX:
        raise QuantityOutOfRange(text)
    return value


@rule("kube.number-as-text", source=_QUANTITY_URL)
def _number_as_text(value: Any) -> Any:
    """No boolean for a quantity, because YAML's ``true`` is no amount; a number (``cpu: 2``, ``cpu: 0.5``) becomes
    the string Kubernetes serialises every quantity as."""
    if isinstance(value, bool):
        raise ValueError(_QUANTITY_RULE)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(Decimal(repr(value)).normalize(), "f")
    return value


def _checked_value(text: str) -> Decimal:
    try:
        return quantity_value(text)
    except QuantityOutOfRange:
        raise ValueError(QUANTITY_RANGE_RULE) from None
    except ValueError:
        raise ValueError(_QUANTITY_RULE) from None


@rule("kube.non-negative", source=_QUANTITY_URL)
def _non_negative(text: str) -> str:
    """A quantity of zero or more, because Kubernetes refuses a negative request, limit or quota."""
    if _checked_value(text) < 0:
        raise ValueError("a quantity cannot be negative")
    return text


@rule("kube.positive", source=_QUANTITY_URL)
def _positive(text: str) -> str:
    """A quantity above zero, because a zero size or capacity here would never fit anything."""
    if _checked_value(text) <= 0:
        raise ValueError("a quantity must be positive, e.g. 2, 500m, 4Gi")
    return text


_AS_TEXT = BeforeValidator(_number_as_text, json_schema_input_type=str | int | float)
"""Numbers become text; the JSON Schema (``tools.stack_schema``) says a number is accepted too."""
Quantity = Annotated[str, _AS_TEXT, AfterValidator(_non_negative)]
"""A quantity of at least zero, written as a YAML number or a string; the text is kept as the manifests emit it."""
PositiveQuantity = Annotated[str, _AS_TEXT, AfterValidator(_positive)]
"""A :data:`Quantity` above zero: a size that must exist, such as an ACS pod's cpu or memory."""


@rule("kube.quoted-version", source=_YAML_URL)
def _quoted_version(value: object) -> object:
    """A Kubernetes version written as a string (``"1.30"``), because YAML reads an unquoted 1.30 as the number 1.3."""
    if isinstance(value, float):
        raise ValueError('quote the version, e.g. "1.35": YAML reads an unquoted 1.30 as the number 1.3')
    return value


KubernetesVersionText = Annotated[str, BeforeValidator(_quoted_version)]
"""A Kubernetes version as the stack file writes it: quoted, since YAML reads an unquoted ``1.30`` as a number."""

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server puts on every namespace: what a namespaceSelector can match a namespace by name with."""
HOSTNAME_LABEL = "kubernetes.io/hostname"
"""The well-known node label every kubelet sets to its node's name."""

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
"""The taint effects the API server knows, which CEL on ResourceFlavor ``spec.nodeTaints`` and ``spec.tolerations``
repeats ("supported taint effect values": https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml,
same in v0.17.8-v0.19.2)."""
TAINT_EFFECTS: tuple[str, ...] = get_args(TaintEffect)


class Taint(ConfigModel):
    """A node taint (core ``Taint``, https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/);
    pods scheduled on the node must tolerate it."""

    key: LabelKey
    """The taint key, such as ``nvidia.com/gpu``."""
    value: LabelValue | None = None
    """The taint value; unset means an empty value."""
    effect: TaintEffect
    """What happens to pods that do not tolerate it: ``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``."""


class Toleration(ConfigModel):
    """A pod toleration (core ``Toleration``,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#scheduling)."""

    key: LabelKey | None = None
    """The taint key it tolerates; unset (with operator ``Exists``) tolerates every taint."""
    operator: Literal["Equal", "Exists"] | None = None
    """``Equal`` (the default) matches ``value``; ``Exists`` matches any value of the key."""
    value: LabelValue | None = None
    """The taint value to match with operator ``Equal``."""
    effect: TaintEffect | None = None
    """The taint effect it tolerates; unset tolerates every effect."""
    toleration_seconds: int | None = None
    """With effect ``NoExecute``: how long the pod stays on a node after the taint appears; unset means forever."""

    @model_validator(mode="after")
    @rule("kube.toleration-rules")
    def _toleration_rules(self) -> Toleration:
        """The API server's rules, which CEL on ResourceFlavor ``spec.tolerations`` repeats ("operator must be Exists
        when 'key' is empty", "a value must be empty when 'operator' is 'Exists'", "effect must be 'NoExecute' when
        'tolerationSeconds' is set": https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml,
        same in v0.17.8-v0.19.2)."""
        if self.key is None and self.operator != "Exists":
            raise RuleViolation("operator", self.operator, "without a key the operator must be Exists")
        if self.operator == "Exists" and self.value is not None:
            raise RuleViolation("value", self.value, "operator Exists takes no value")
        if self.toleration_seconds is not None and self.effect != "NoExecute":
            raise RuleViolation("tolerationSeconds", self.toleration_seconds, "only effect NoExecute takes it")
        return self


class LabelSelectorRequirement(ConfigModel):
    """One ``matchExpressions`` entry: ``In``/``NotIn`` need values, ``Exists``/``DoesNotExist`` take none."""

    key: LabelKey
    """The label key the requirement is about."""
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    """How the label's value relates to ``values``."""
    values: list[LabelValue] | None = None
    """The values for ``In`` and ``NotIn``; none for ``Exists`` and ``DoesNotExist``."""

    @model_validator(mode="after")
    @rule("kube.values-match-the-operator", source=_SELECTOR_URL)
    def _values_match_the_operator(self) -> LabelSelectorRequirement:
        """Values with ``In`` and ``NotIn`` and none with ``Exists`` and ``DoesNotExist``, because the API server
        refuses a selector requirement otherwise."""
        if self.operator in ("In", "NotIn") and not self.values:
            raise RuleViolation("values", self.values, f"operator {self.operator} needs at least one value")
        if self.operator in ("Exists", "DoesNotExist") and self.values:
            raise RuleViolation("values", self.values, f"operator {self.operator} takes no values")
        return self

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        values = self.values or []
        if self.operator == "In":
            return present and labels[self.key] in values
        return not present or labels[self.key] not in values


class LabelSelector(ConfigModel):
    """A label selector (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/label-selector/);
    ``{}`` matches every object. Unset parts stay unset, so manifests show only what is set."""

    match_labels: Labels | None = None
    """Labels an object must carry with exactly these values."""
    match_expressions: list[LabelSelectorRequirement] | None = None
    """Requirements an object's labels must all meet, besides ``matchLabels``."""

    def decidable_by(self, keys: set[str]) -> bool:
        """Whether knowing only the labels ``keys`` of an object decides if this selector selects it."""
        used = {*(self.match_labels or {}), *(e.key for e in self.match_expressions or [])}
        return used <= keys

    def matches(self, labels: dict[str, str]) -> bool:
        """Whether ``labels`` are selected, evaluated the way the API server does."""
        return all(labels.get(k) == v for k, v in (self.match_labels or {}).items()) and all(
            e.matches(labels) for e in self.match_expressions or []
        )
