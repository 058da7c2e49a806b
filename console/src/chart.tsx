import type { Schemas } from './api.ts';

type Hour = Schemas['ConsoleOverview']['hours'][number];

interface Series {
  title: string;
  parts: { label: string; className: string; value: (hour: Hour) => number }[];
}

const SERIES: Series[] = [
  {
    title: 'Webhook deliveries',
    parts: [
      { label: 'succeeded', className: 'ok', value: (hour) => hour.deliveries.succeeded },
      { label: 'failed', className: 'bad', value: (hour) => hour.deliveries.failed },
      { label: 'pending or retrying', className: 'wait', value: (hour) => hour.deliveries.pending },
    ],
  },
  {
    title: 'Groups',
    parts: [
      { label: 'created', className: 'ok', value: (hour) => hour.groups.created },
      { label: 'failed', className: 'bad', value: (hour) => hour.groups.failed },
    ],
  },
  {
    title: 'Reports',
    parts: [
      { label: 'completed', className: 'ok', value: (hour) => hour.reports.completed },
      { label: 'failed', className: 'bad', value: (hour) => hour.reports.failed },
    ],
  },
];

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const WIDTH = 480;
const HEIGHT = 90;

/**
 * The last 24 hours as stacked bars per hour, one small chart per kind. Each chart is an image with a text
 * alternative (its totals); the numbers per hour are in the table below it.
 */
export function DayChart({ hours }: { hours: Hour[] }) {
  return (
    <div class="charts">
      {SERIES.map((series) => {
        const totals = series.parts.map((part) => hours.reduce((sum, hour) => sum + part.value(hour), 0));
        const max = Math.max(1, ...hours.map((hour) => series.parts.reduce((sum, part) => sum + part.value(hour), 0)));
        const barWidth = WIDTH / hours.length;
        const summary = series.parts.map((part, index) => `${totals[index]} ${part.label}`).join(', ');
        return (
          <figure class="chart" key={series.title}>
            <figcaption>
              <strong>{series.title}</strong>
              <span class="legend">
                {series.parts.map((part, index) => (
                  <span key={part.label}>
                    <span class={`swatch ${part.className}`} aria-hidden="true" /> {part.label} {totals[index]}
                  </span>
                ))}
              </span>
            </figcaption>
            <svg
              viewBox={`0 0 ${WIDTH} ${HEIGHT + 14}`}
              role="img"
              aria-label={`${series.title} in the last 24 hours: ${summary}`}
            >
              <line x1="0" x2={WIDTH} y1={HEIGHT} y2={HEIGHT} class="axis" />
              {hours.map((hour, index) => {
                let y = HEIGHT;
                return (
                  <g key={hour.hour}>
                    {series.parts.map((part) => {
                      const value = part.value(hour);
                      const height = (value / max) * (HEIGHT - 4);
                      y -= height;
                      return value > 0 ? (
                        <rect
                          key={part.label}
                          class={part.className}
                          x={index * barWidth + 1}
                          y={y}
                          width={barWidth - 2}
                          height={height}
                        />
                      ) : null;
                    })}
                    {index % 6 === 0 ? (
                      <text x={index * barWidth + 1} y={HEIGHT + 12} class="tick">
                        {hourLabel.format(new Date(hour.hour))}
                      </text>
                    ) : null}
                  </g>
                );
              })}
            </svg>
          </figure>
        );
      })}
    </div>
  );
}
