import protobuf from 'protobufjs';

/**
 * The OTLP trace messages the collector reads and writes, as a protobufjs JSON
 * descriptor transcribed from opentelemetry-proto (trace/v1, common/v1,
 * resource/v1, collector/trace/v1) plus google.rpc.Status for error bodies.
 * Field numbers and types follow the .proto files exactly; protobufjs uses the
 * lowerCamelCase names, which are also the OTLP/JSON names. Transcribed by hand
 * because no installed package ships a decodable OTLP schema (the SDK's
 * otlp-transformer only encodes, with generated writers).
 */
const keyValueList = { type: 'opentelemetry.proto.common.v1.KeyValue', rule: 'repeated' } as const;

const descriptor = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: {
                          oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
                        },
                      },
                      fields: {
                        stringValue: { type: 'string', id: 1 },
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                        arrayValue: { type: 'ArrayValue', id: 5 },
                        kvlistValue: { type: 'KeyValueList', id: 6 },
                        bytesValue: { type: 'bytes', id: 7 },
                      },
                    },
                    ArrayValue: { fields: { values: { type: 'AnyValue', id: 1, rule: 'repeated' } } },
                    KeyValueList: { fields: { values: { type: 'KeyValue', id: 1, rule: 'repeated' } } },
                    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
                    InstrumentationScope: {
                      fields: {
                        name: { type: 'string', id: 1 },
                        version: { type: 'string', id: 2 },
                        attributes: { ...keyValueList, id: 3 },
                        droppedAttributesCount: { type: 'uint32', id: 4 },
                      },
                    },
                    EntityRef: {
                      fields: {
                        schemaUrl: { type: 'string', id: 1 },
                        type: { type: 'string', id: 2 },
                        idKeys: { type: 'string', id: 3, rule: 'repeated' },
                        descriptionKeys: { type: 'string', id: 4, rule: 'repeated' },
                      },
                    },
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: {
                      fields: {
                        attributes: { ...keyValueList, id: 1 },
                        droppedAttributesCount: { type: 'uint32', id: 2 },
                        entityRefs: { type: 'opentelemetry.proto.common.v1.EntityRef', id: 3, rule: 'repeated' },
                      },
                    },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    TracesData: { fields: { resourceSpans: { type: 'ResourceSpans', id: 1, rule: 'repeated' } } },
                    ResourceSpans: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeSpans: { type: 'ScopeSpans', id: 2, rule: 'repeated' },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        spans: { type: 'Span', id: 2, rule: 'repeated' },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    Span: {
                      fields: {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        traceState: { type: 'string', id: 3 },
                        parentSpanId: { type: 'bytes', id: 4 },
                        flags: { type: 'fixed32', id: 16 },
                        name: { type: 'string', id: 5 },
                        kind: { type: 'SpanKind', id: 6 },
                        startTimeUnixNano: { type: 'fixed64', id: 7 },
                        endTimeUnixNano: { type: 'fixed64', id: 8 },
                        attributes: { ...keyValueList, id: 9 },
                        droppedAttributesCount: { type: 'uint32', id: 10 },
                        events: { type: 'Event', id: 11, rule: 'repeated' },
                        droppedEventsCount: { type: 'uint32', id: 12 },
                        links: { type: 'Link', id: 13, rule: 'repeated' },
                        droppedLinksCount: { type: 'uint32', id: 14 },
                        status: { type: 'Status', id: 15 },
                      },
                      nested: {
                        SpanKind: {
                          values: {
                            SPAN_KIND_UNSPECIFIED: 0,
                            SPAN_KIND_INTERNAL: 1,
                            SPAN_KIND_SERVER: 2,
                            SPAN_KIND_CLIENT: 3,
                            SPAN_KIND_PRODUCER: 4,
                            SPAN_KIND_CONSUMER: 5,
                          },
                        },
                        Event: {
                          fields: {
                            timeUnixNano: { type: 'fixed64', id: 1 },
                            name: { type: 'string', id: 2 },
                            attributes: { ...keyValueList, id: 3 },
                            droppedAttributesCount: { type: 'uint32', id: 4 },
                          },
                        },
                        Link: {
                          fields: {
                            traceId: { type: 'bytes', id: 1 },
                            spanId: { type: 'bytes', id: 2 },
                            traceState: { type: 'string', id: 3 },
                            attributes: { ...keyValueList, id: 4 },
                            droppedAttributesCount: { type: 'uint32', id: 5 },
                            flags: { type: 'fixed32', id: 6 },
                          },
                        },
                      },
                    },
                    Status: {
                      fields: { message: { type: 'string', id: 2 }, code: { type: 'StatusCode', id: 3 } },
                      nested: {
                        StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } },
                      },
                    },
                  },
                },
              },
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: { type: 'opentelemetry.proto.trace.v1.ResourceSpans', id: 1, rule: 'repeated' } },
                        },
                        ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
                        ExportTracePartialSuccess: {
                          fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    google: {
      nested: {
        protobuf: { nested: { Any: { fields: { typeUrl: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } } } },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { type: 'google.protobuf.Any', id: 3, rule: 'repeated' },
              },
            },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor).resolveAll();

/**
 * The deepest attribute value (AnyValue inside AnyValue) a configuration may
 * allow. Each level is three protobuf messages (AnyValue, KeyValueList,
 * KeyValue), and protobufjs refuses messages nested past its recursion limit
 * (100 by default, about 30 attribute levels): the limit is raised so that the
 * collector's own, configured limit is the one that applies. protobufjs is
 * only used by the collector in this package.
 */
export const MAX_ANY_VALUE_DEPTH_LIMIT = 256;
const RECURSION_LIMIT = 3 * MAX_ANY_VALUE_DEPTH_LIMIT + 16;
protobuf.util.recursionLimit = Math.max(protobuf.util.recursionLimit, RECURSION_LIMIT);
protobuf.Reader.recursionLimit = Math.max(protobuf.Reader.recursionLimit, RECURSION_LIMIT);

export const ExportTraceServiceRequestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const ExportTraceServiceResponseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
export const ResourceSpansType = root.lookupType('opentelemetry.proto.trace.v1.ResourceSpans');
export const ScopeSpansType = root.lookupType('opentelemetry.proto.trace.v1.ScopeSpans');
export const AnyValueType = root.lookupType('opentelemetry.proto.common.v1.AnyValue');
export const KeyValueType = root.lookupType('opentelemetry.proto.common.v1.KeyValue');
export const EventType = root.lookupType('opentelemetry.proto.trace.v1.Span.Event');
export const SpanType = root.lookupType('opentelemetry.proto.trace.v1.Span');
export const ResourceType = root.lookupType('opentelemetry.proto.resource.v1.Resource');
export const InstrumentationScopeType = root.lookupType('opentelemetry.proto.common.v1.InstrumentationScope');
export const RpcStatusType = root.lookupType('google.rpc.Status');

/** Field names that OTLP/JSON encodes as hex instead of base64 (OTLP spec, "JSON Protobuf Encoding"). */
export const HEX_BYTES_FIELDS: ReadonlySet<string> = new Set(['traceId', 'spanId', 'parentSpanId']);
