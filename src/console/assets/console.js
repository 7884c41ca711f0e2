// The console's one script, loaded from /assets (the page's policy allows no inline script):
// draws the runs chart with uPlot from /runs/chart.json. Every other page is plain HTML.
/* global document, window, fetch -- a browser script */
(function () {
  'use strict';
  const COLOURS = { good: '#2e7d32', warn: '#e67700', bad: '#c62828', live: '#1565c0', plain: '#616161' };

  function widthOf(figure) {
    return Math.max(260, figure.clientWidth - 2);
  }

  function column(data, key, status) {
    return data[key].map((value, index) => (data.status[index] === status ? value : null));
  }

  function chart(figure, data, key) {
    const statuses = Object.keys(data.tones);
    const series = statuses.map((status) => {
      const colour = COLOURS[data.tones[status]] || COLOURS.plain;
      return {
        label: status,
        stroke: colour,
        paths: () => null,
        points: { show: true, size: 7, stroke: colour, fill: colour },
      };
    });
    const options = {
      width: widthOf(figure),
      height: 200,
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
      series: [{ label: 'started' }, ...series],
      axes: [{}, { size: 60 }],
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new window.uPlot(
      options,
      [data.at, ...statuses.map((status) => column(data, key, status))],
      figure,
    );
    return { plot, figure };
  }

  function draw(box, data) {
    box.textContent = '';
    if (data.at.length === 0) {
      const empty = document.createElement('p');
      empty.className = 'empty';
      empty.textContent = 'No finished run in the last 30 days matches these filters.';
      box.append(empty);
      return;
    }
    // Both figures first, so that each plot is sized to its share of the row.
    const charts = [
      ['seconds', 'Duration (seconds)'],
      ['records', 'Records read'],
    ].map(([key, label]) => {
      const figure = document.createElement('figure');
      const caption = document.createElement('figcaption');
      caption.textContent = label;
      figure.append(caption);
      box.append(figure);
      return { key, figure };
    });
    const plots = charts.map(({ key, figure }) => chart(figure, data, key));
    box.dataset.drawn = String(data.at.length);
    window.addEventListener('resize', () => {
      for (const { plot, figure } of plots) plot.setSize({ width: widthOf(figure), height: 200 });
    });
  }

  const box = document.getElementById('runs-chart');
  if (!box || !window.uPlot) return;
  fetch(box.dataset.src, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then((reply) => {
      if (!reply.ok) throw new Error(`the chart's data answered ${reply.status}`);
      return reply.json();
    })
    .then((data) => draw(box, data))
    .catch((error) => {
      box.textContent = `Could not draw the chart: ${error.message}`;
    });
})();
