// The funnel tracker (docs/CAPTURING.md): no cookies, no dependency; the session id lives in
// sessionStorage, so it ends with the tab. Served minified (tracker.min.js, npm run tracker:build).
(function (w, d) {
  var me = d.currentScript;
  var funnel = me && me.getAttribute('data-funnel');
  if (!funnel || w.crm) return;
  var base = new URL(me.src).origin + '/v1/funnels/' + funnel;
  var store = w.sessionStorage;
  var key = 'crm:' + funnel;
  var sid = store.getItem(key);
  // Queued events, each with its failed tries; kept in the tab, so the next page sends what a
  // closing one may not have (a repeated event counts once).
  var queue = JSON.parse(store.getItem(key + 'q') || '[]');
  var answers = {};
  var body = d.body;
  var page, shownAt, viewSent, timer;

  function send(type, event) {
    event = event || {};
    event.type = type;
    event.sessionId = sid;
    event.occurredAt = new Date().toISOString();
    queue.push([event, 0]);
    keep();
    clearTimeout(timer);
    timer = setTimeout(flush, 1000);
  }

  function keep() {
    store.setItem(key + 'q', JSON.stringify(queue));
  }

  function post(path, data) {
    // A string body is text/plain: a simple request, no preflight.
    return fetch(base + path, { method: 'POST', body: data, keepalive: true }).then(
      function (r) {
        // A refused batch is not sent again; a limit or an outage is.
        return r.status < 429;
      },
      function () {},
    );
  }

  // Sends what is queued; what fails is queued again and retried later, three tries each.
  function flush(closing) {
    var batch = queue.slice(0, 50);
    var data = JSON.stringify({
      events: batch.map(function (q) {
        return q[0];
      }),
    });
    if (!batch.length) return Promise.resolve(1);
    if (closing) return navigator.sendBeacon(base + '/collect', data);
    queue = queue.slice(50);
    keep();
    return post('/collect', data).then(function (ok) {
      if (!ok) {
        queue = batch
          .filter(function (q) {
            return ++q[1] < 3;
          })
          .concat(queue);
        keep();
        timer = setTimeout(flush, 5000);
      }
    });
  }

  // The page's view with the time spent on it, once: on leaving, navigating or submitting.
  function leave(closing) {
    if (!viewSent) send('page_view', { pageSlug: page, timeOnPageMs: Math.min(Date.now() - shownAt, 864e5) });
    viewSent = 1;
    return flush(closing);
  }

  function view(slug) {
    if (page) leave();
    slug = slug || body.getAttribute('data-crm-page') || location.pathname.split('/').pop().split('.')[0];
    page = (slug || 'index').replace(/[^\w-]/g, '-').slice(0, 200);
    shownAt = Date.now();
    viewSent = 0;
  }

  function answer(questionId, values, title) {
    answers[questionId] = values;
    send('answer', { questionId: questionId, questionTitle: title || questionId, answers: values });
  }

  // The lead form: its fields, the answers given in this tab, the page's zone and frame.
  function submit(fields, trap) {
    return leave().then(function () {
      return post(
        '/submissions',
        JSON.stringify({
          sessionId: sid,
          fields: fields,
          answers: Object.keys(answers).map(function (q) {
            return { questionId: q, answers: answers[q] };
          }),
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
    new URLSearchParams(location.search).forEach(function (v, k) {
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
  w.addEventListener('popstate', function () {
    view();
  });
  // Leaving: the page closes or the visitor navigates.
  w.addEventListener('pagehide', function () {
    leave(1);
  });

  d.addEventListener('click', function (e) {
    var el = e.target.closest('[data-crm-button],[data-crm-complete]');
    var id = el && el.getAttribute('data-crm-button');
    if (id) crm.click(id, el.textContent.trim().slice(0, 200) || undefined);
    if (el && el.hasAttribute('data-crm-complete')) send('completion');
  });

  d.addEventListener('change', function (e) {
    var el = e.target.closest('[data-crm-question]');
    if (!el) return;
    var values = [];
    // A fieldset's inputs, or the input itself.
    [].forEach.call(el.elements || [el], function (i) {
      if (i.value && (!/checkbox|radio/.test(i.type) || i.checked)) values.push(i.value.slice(0, 200));
    });
    var legend = el.querySelector('legend');
    if (values.length)
      answer(
        el.getAttribute('data-crm-question'),
        values,
        legend ? legend.textContent.trim().slice(0, 500) : 0,
      );
  });

  d.addEventListener('submit', function (e) {
    var form = e.target;
    if (!form.hasAttribute('data-crm-form')) return;
    e.preventDefault();
    var fields = {};
    new FormData(form).forEach(function (v, k) {
      if (v) fields[k] = v;
    });
    var trap = fields.crm_trap;
    delete fields.crm_trap;
    submit(fields, trap).then(function (ok) {
      form.setAttribute('data-crm-submitted', ok ? 'ok' : 'failed');
      if (ok && form.getAttribute('action')) location.href = form.action;
    });
  });

  var crm = (w.crm = {
    sessionId: sid,
    page: view,
    click: function (id, label) {
      send('button_click', { pageSlug: page, buttonId: id, buttonLabel: label });
    },
    answer: answer,
    convert: function () {
      send('conversion');
    },
    complete: function () {
      send('completion');
    },
    submit: submit,
    flush: flush,
  });
})(window, document);
