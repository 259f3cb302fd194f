// The funnel tracker (docs/CAPTURING.md): no cookies, no dependency; the session id lives in
// sessionStorage, so it ends with the tab. Served minified (tracker.min.js, npm run tracker:build).
((w, d) => {
  var me = d.currentScript;
  var funnel = me && me.getAttribute('data-funnel');
  if (!funnel || w.crm) return;
  var base = new URL(me.src).origin + '/v1/funnels/' + funnel;
  var store = w.sessionStorage;
  var key = 'crm:' + funnel;
  var sid = store.getItem(key);
  // Queued events, kept in the tab, so the next page sends what a closing one may not have (a
  // repeated event counts once).
  var queue = JSON.parse(store.getItem(key + 'e') || '[]');
  var fails = 0;
  var answers = {};
  var body = d.body;
  var page, shownAt, timer;

  function send(type, event) {
    event = event || {};
    event.type = type;
    event.sessionId = sid;
    event.occurredAt = new Date().toISOString();
    queue.push(event);
    keep();
    clearTimeout(timer);
    timer = setTimeout(flush, 1000);
  }

  function keep() {
    store.setItem(key + 'e', JSON.stringify(queue));
  }

  function post(path, data) {
    // A string body is text/plain: a simple request, no preflight.
    return fetch(base + path, { method: 'POST', body: data, keepalive: true }).then(
      (r) => {
        // A refused batch is not sent again; a limit or an outage is.
        return r.status < 429;
      },
      () => {},
    );
  }

  // Sends what is queued; what fails is queued again and retried later, three tries in a row.
  function flush(closing) {
    var batch = queue.slice(0, 50);
    var data = JSON.stringify({ events: batch });
    if (!batch.length) return Promise.resolve(1);
    // Beaconed events stay in sessionStorage: the tab's next page sends them again, in case.
    if (closing) return navigator.sendBeacon(base + '/collect', data) && (queue = queue.slice(50));
    queue = queue.slice(50);
    keep();
    return post('/collect', data).then((ok) => {
      if (ok || ++fails > 2) fails = 0;
      else {
        queue = batch.concat(queue);
        keep();
        timer = setTimeout(flush, 5000);
      }
    });
  }

  // The page's view with the time spent on it, once: on leaving, navigating or submitting.
  // `closing` (pagehide's event too): the page may be gone before an answer, send a beacon.
  function leave(closing) {
    if (shownAt) send('page_view', { pageSlug: page, timeOnPageMs: Math.min(Date.now() - shownAt, 864e5) });
    shownAt = 0;
    return flush(closing);
  }

  function view(slug) {
    if (page) leave();
    slug = slug || body.getAttribute('data-crm-page') || location.pathname.split('/').pop().split('.')[0];
    page = (slug || 'index').replace(/[^\w-]/g, '-').slice(0, 200);
    shownAt = Date.now();
  }

  function answer(questionId, values, title) {
    answers[questionId] = { questionId: questionId, answers: values };
    send('answer', { questionId: questionId, questionTitle: title || questionId, answers: values });
  }

  // The lead form: its fields, the answers given in this tab, the page's zone and frame.
  function submit(fields, trap) {
    return leave().then(() => {
      return post(
        '/submissions',
        JSON.stringify({
          sessionId: sid,
          fields: fields,
          answers: Object.values(answers),
          page: { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, embed: w.top !== w },
          trap: trap,
        }),
      );
    });
  }

  if (!sid) {
    store.setItem(key, (sid = crypto.randomUUID()));
    var variant = body.getAttribute('data-crm-variant');
    var start = { abVariant: /^(original|variant)$/.test(variant) ? variant : undefined };
    new URLSearchParams(location.search).forEach((v, k) => {
      if (/^utm_(source|medium|campaign|term|content)$/.test(k) && v)
        (start.utm = start.utm || {})[k.slice(4)] = v.slice(0, 200);
    });
    send('session_start', start);
  }
  view();
  flush();

  var push = history.pushState;
  history.pushState = function () {
    push.apply(history, arguments);
    view();
  };
  w.addEventListener('popstate', () => view());
  // Leaving: the page is hidden (the last moment a phone's browser surely runs it), closes or
  // navigates; the view goes out in a beacon, which the browser delivers after the page is gone.
  d.addEventListener('visibilitychange', () => {
    if (d.hidden) leave(1);
  });
  w.addEventListener('pagehide', leave);

  d.addEventListener('click', (e) => {
    var el = e.target.closest('[data-crm-button],[data-crm-complete]');
    var id = el && el.getAttribute('data-crm-button');
    if (id) crm.click(id, el.textContent.trim().slice(0, 200) || id);
    if (el && el.hasAttribute('data-crm-complete')) crm.complete();
  });

  d.addEventListener('change', (e) => {
    var el = e.target.closest('[data-crm-question]');
    if (!el) return;
    var values = [];
    // A fieldset's inputs, or the input itself.
    [].forEach.call(el.elements || [el], (i) => {
      if (i.value && (!/checkbox|radio/.test(i.type) || i.checked)) values.push(i.value.slice(0, 200));
    });
    var legend = el.querySelector('legend');
    if (values.length)
      answer(el.getAttribute('data-crm-question'), values, legend && legend.textContent.trim().slice(0, 500));
  });

  d.addEventListener('submit', (e) => {
    var form = e.target;
    if (!form.hasAttribute('data-crm-form')) return;
    e.preventDefault();
    var fields = {};
    new FormData(form).forEach((v, k) => {
      if (v) fields[k] = v;
    });
    // A filled honeypot is all the service reads: it stores nothing then.
    submit(fields, fields.crm_trap).then((ok) => {
      form.setAttribute('data-crm-submitted', ok ? 'ok' : 'failed');
      if (ok && form.getAttribute('action')) location.href = form.action;
    });
  });

  var crm = (w.crm = {
    sessionId: sid,
    page: view,
    click: (id, label) => send('button_click', { pageSlug: page, buttonId: id, buttonLabel: label }),
    answer: answer,
    convert: () => send('conversion'),
    complete: () => send('completion'),
    submit: submit,
    flush: flush,
  });
})(window, document);
