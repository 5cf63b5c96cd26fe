import { useEffect, useRef, useState } from 'react';
import type * as EchartsCore from 'echarts/core';
import { saveBlob, saveHref } from '../download.js';
import type { ChartOption } from './options.js';

type Echarts = typeof EchartsCore;
let loading: Promise<Echarts> | undefined;
/** ECharts is loaded the first time a chart is shown, in its own chunk. */
const loadEcharts = () => (loading ??= import('./echarts-setup.js').then((m) => m.echarts));

/** One ECharts chart (canvas), with PNG and SVG export; re-renders when `option` changes. */
export function Chart({ option, name, height = 320 }: { option: ChartOption; name: string; height?: number }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<Echarts['init']> | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let live = true;
    let observer: ResizeObserver | undefined;
    void loadEcharts().then((echarts) => {
      if (!live || !el.current) return;
      chart.current = echarts.init(el.current, undefined, { renderer: 'canvas' });
      observer = new ResizeObserver(() => chart.current?.resize());
      observer.observe(el.current);
      setReady(true);
    });
    return () => {
      live = false;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    if (ready) chart.current?.setOption(option, { notMerge: true });
  }, [ready, option]);

  const png = () => {
    const url = chart.current?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' });
    if (url) saveHref(`${name}.png`, url);
  };
  const svg = async () => {
    const echarts = await loadEcharts();
    const box = el.current?.getBoundingClientRect();
    const off = echarts.init(null, undefined, {
      renderer: 'svg',
      ssr: true,
      width: Math.round(box?.width || 800),
      height: Math.round(box?.height || height),
    });
    off.setOption({ ...option, animation: false });
    const text = off.renderToSVGString();
    off.dispose();
    saveBlob(`${name}.svg`, new Blob([text], { type: 'image/svg+xml' }));
  };

  return (
    <figure className="j-chart" data-testid={`chart-${name}`}>
      <div ref={el} style={{ height }} className="j-chart-canvas" />
      <figcaption className="j-row">
        <span className="j-spacer" />
        <button type="button" className="j-small" onClick={png} disabled={!ready}>
          PNG
        </button>
        <button type="button" className="j-small" onClick={() => void svg()} disabled={!ready}>
          SVG
        </button>
      </figcaption>
    </figure>
  );
}
