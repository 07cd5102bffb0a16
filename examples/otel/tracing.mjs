// Traces redline runs with the OpenTelemetry Node SDK and exports the spans over OTLP/HTTP (JSON).
// Load it before redline starts (docs/observability.md):
//
//   npm i @opentelemetry/api @opentelemetry/sdk-trace-node @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http@0.223
//   node --import ./node_modules/redline-loop/examples/otel/tracing.mjs node_modules/.bin/redline run mission.yaml
//
// The collector's address comes from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT),
// default http://localhost:4318/v1/traces; the service name from OTEL_SERVICE_NAME, default redline.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'redline' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
// Registers the provider (and an AsyncLocalStorage context, so spans opened inside a proposer nest under it).
provider.register();

// redline sets process.exitCode and returns: export the spans still batched before the process exits.
process.once('beforeExit', () => provider.shutdown());
