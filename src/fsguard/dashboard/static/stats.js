// Statistics: draws the charts from the JSON the server embedded in the page (no request of its own).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("stats-data").textContent);
  var palette = ["#2f6fde", "#1f8a4c", "#e08a00", "#c23434", "#6a4fc2", "#0f9aa8", "#d1549a", "#7a8699", "#b0b7c3"];
  Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Roboto, sans-serif";
  Chart.defaults.color = "#4a5366";
  Chart.defaults.animation = false;
  function bytes(value) {
    var units = ["B", "KiB", "MiB", "GiB"], i = 0;
    while (Math.abs(value) >= 1024 && i < units.length - 1) { value /= 1024; i++; }
    return (i ? value.toFixed(1) : value.toFixed(0)) + " " + units[i];
  }
  var common = { responsive: true, maintainAspectRatio: false, plugins: { legend: { position: "bottom" } } };
  new Chart(document.getElementById("chart-tools"), {
    type: "bar",
    data: {
      labels: data.labels,
      datasets: data.perTool.map(function (series, i) {
        return { label: series.label, data: series.values, backgroundColor: palette[i % palette.length], borderRadius: 3, maxBarThickness: 48 };
      })
    },
    options: Object.assign({}, common, { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } })
  });
  var codes = Object.keys(data.errorsByCode);
  new Chart(document.getElementById("chart-errors"), {
    type: "bar",
    data: { labels: codes, datasets: [{ label: "errors", data: codes.map(function (c) { return data.errorsByCode[c]; }), backgroundColor: "#c23434", borderRadius: 3, maxBarThickness: 26 }] },
    options: Object.assign({}, common, { indexAxis: "y", plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } })
  });
  new Chart(document.getElementById("chart-bytes"), {
    type: "bar",
    data: { labels: data.labels, datasets: [{ label: "bytes written", data: data.bytesWritten, backgroundColor: "#0f9aa8", borderRadius: 3, maxBarThickness: 40 }] },
    options: Object.assign({}, common, { plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) { return bytes(c.parsed.y); } } } }, scales: { y: { beginAtZero: true, ticks: { callback: bytes } } } })
  });
  new Chart(document.getElementById("chart-store"), {
    type: "line",
    data: { labels: data.storeLabels, datasets: [{ label: "backup store", data: data.storeBytes, borderColor: "#6a4fc2", backgroundColor: "rgba(106,79,194,.15)", fill: true, tension: 0, pointRadius: 3 }] },
    options: Object.assign({}, common, { plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) { return bytes(c.parsed.y); } } } }, scales: { y: { beginAtZero: true, ticks: { callback: bytes } } } })
  });
})();
