from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
STATUS_ABORTED: Status
STATUS_INVALID: Status
STATUS_OK: Status
STATUS_UNSPECIFIED: Status

class GroupOptions(_message.Message):
    __slots__ = ["advantage", "keep_max", "keep_min", "length_penalty", "length_penalty_max", "max_length", "min_valid"]
    ADVANTAGE_FIELD_NUMBER: _ClassVar[int]
    KEEP_MAX_FIELD_NUMBER: _ClassVar[int]
    KEEP_MIN_FIELD_NUMBER: _ClassVar[int]
    LENGTH_PENALTY_FIELD_NUMBER: _ClassVar[int]
    LENGTH_PENALTY_MAX_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MIN_VALID_FIELD_NUMBER: _ClassVar[int]
    advantage: str
    keep_max: float
    keep_min: float
    length_penalty: bool
    length_penalty_max: float
    max_length: int
    min_valid: int
    def __init__(self, length_penalty: bool = ..., length_penalty_max: _Optional[float] = ..., max_length: _Optional[int] = ..., keep_min: _Optional[float] = ..., keep_max: _Optional[float] = ..., min_valid: _Optional[int] = ..., advantage: _Optional[str] = ...) -> None: ...

class GroupSummary(_message.Message):
    __slots__ = ["aborted", "group_id", "invalid", "keep", "keep_reason", "mean_raw_reward", "mean_reward", "ok", "shortest_correct", "size"]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    INVALID_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    KEEP_REASON_FIELD_NUMBER: _ClassVar[int]
    MEAN_RAW_REWARD_FIELD_NUMBER: _ClassVar[int]
    MEAN_REWARD_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    SHORTEST_CORRECT_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    aborted: int
    group_id: str
    invalid: int
    keep: bool
    keep_reason: str
    mean_raw_reward: float
    mean_reward: float
    ok: int
    shortest_correct: int
    size: int
    def __init__(self, group_id: _Optional[str] = ..., size: _Optional[int] = ..., ok: _Optional[int] = ..., aborted: _Optional[int] = ..., invalid: _Optional[int] = ..., mean_reward: _Optional[float] = ..., keep: bool = ..., keep_reason: _Optional[str] = ..., mean_raw_reward: _Optional[float] = ..., shortest_correct: _Optional[int] = ...) -> None: ...

class ListVerifiersRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListVerifiersResponse(_message.Message):
    __slots__ = ["verifiers"]
    VERIFIERS_FIELD_NUMBER: _ClassVar[int]
    verifiers: _containers.RepeatedCompositeFieldContainer[VerifierInfo]
    def __init__(self, verifiers: _Optional[_Iterable[_Union[VerifierInfo, _Mapping]]] = ...) -> None: ...

class Sample(_message.Message):
    __slots__ = ["group_id", "id", "label", "metadata", "response", "response_tokens", "verifier"]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    id: str
    label: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    response: str
    response_tokens: int
    verifier: str
    def __init__(self, id: _Optional[str] = ..., verifier: _Optional[str] = ..., response: _Optional[str] = ..., label: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., group_id: _Optional[str] = ..., response_tokens: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ScoreRequest(_message.Message):
    __slots__ = ["group_options", "samples"]
    GROUP_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    group_options: GroupOptions
    samples: _containers.RepeatedCompositeFieldContainer[Sample]
    def __init__(self, samples: _Optional[_Iterable[_Union[Sample, _Mapping]]] = ..., group_options: _Optional[_Union[GroupOptions, _Mapping]] = ...) -> None: ...

class ScoreResponse(_message.Message):
    __slots__ = ["groups", "results"]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    groups: _containers.RepeatedCompositeFieldContainer[GroupSummary]
    results: _containers.RepeatedCompositeFieldContainer[ScoreResult]
    def __init__(self, results: _Optional[_Iterable[_Union[ScoreResult, _Mapping]]] = ..., groups: _Optional[_Iterable[_Union[GroupSummary, _Mapping]]] = ...) -> None: ...

class ScoreResult(_message.Message):
    __slots__ = ["advantage", "details", "group", "id", "index", "reason", "reward", "status", "verifier", "verifier_version"]
    ADVANTAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_VERSION_FIELD_NUMBER: _ClassVar[int]
    advantage: float
    details: _struct_pb2.Struct
    group: GroupSummary
    id: str
    index: int
    reason: str
    reward: float
    status: Status
    verifier: str
    verifier_version: str
    def __init__(self, id: _Optional[str] = ..., status: _Optional[_Union[Status, str]] = ..., reward: _Optional[float] = ..., reason: _Optional[str] = ..., verifier: _Optional[str] = ..., verifier_version: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., index: _Optional[int] = ..., group: _Optional[_Union[GroupSummary, _Mapping]] = ..., advantage: _Optional[float] = ...) -> None: ...

class VerifierExample(_message.Message):
    __slots__ = ["label", "metadata", "needs", "response", "reward"]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NEEDS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    label: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    needs: _containers.RepeatedScalarFieldContainer[str]
    response: str
    reward: float
    def __init__(self, label: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., response: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., reward: _Optional[float] = ..., needs: _Optional[_Iterable[str]] = ...) -> None: ...

class VerifierInfo(_message.Message):
    __slots__ = ["description", "example", "label_schema", "name", "sections", "version"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXAMPLE_FIELD_NUMBER: _ClassVar[int]
    LABEL_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    description: str
    example: VerifierExample
    label_schema: str
    name: str
    sections: _containers.RepeatedScalarFieldContainer[str]
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., label_schema: _Optional[str] = ..., sections: _Optional[_Iterable[str]] = ..., example: _Optional[_Union[VerifierExample, _Mapping]] = ...) -> None: ...

class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
