/**
 * Prometheus as the alert scenarios run it: the committed config scraping one
 * loopguard collector with a given rule file, and the wait for an alert.
 */
import {
  collectorConfigPath,
  prometheusAlerts,
  prometheusTargets,
  startPrometheus,
  waitFor,
  type LoopguardCollectorInstance,
  type PrometheusAlert,
  type PrometheusInstance,
} from '../support/index.js';

/** Starts Prometheus on `rulesPath` and resolves once its first scrape of `loopguard` succeeded. */
export async function startPrometheusOnCollector(loopguard: LoopguardCollectorInstance, rulesPath: string): Promise<PrometheusInstance> {
  const prometheus = await startPrometheus(collectorConfigPath('prometheus', 'prometheus.yml'), rulesPath, {
    targets: { 'loopguard-collector': [loopguard.target] },
  });
  try {
    await waitFor(async () => (await prometheusTargets(prometheus.url)).some((target) => target.health === 'up'), {
      description: 'Prometheus scraping the loopguard collector',
    });
  } catch (error) {
    await prometheus.stop();
    throw error;
  }
  return prometheus;
}

/** Waits until `alertname` fires; resolves with every pending and firing alert at that moment. */
export async function waitForFiring(prometheus: PrometheusInstance, alertname: string, timeoutMs = 30_000): Promise<PrometheusAlert[]> {
  return waitFor(
    async () => {
      const alerts = await prometheusAlerts(prometheus.url);
      return alerts.some((alert) => alert.labels.alertname === alertname && alert.state === 'firing') ? alerts : undefined;
    },
    { description: `${alertname} firing in /api/v1/alerts`, timeoutMs },
  );
}
