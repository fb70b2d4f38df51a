package loader

// seedStatement is one believable flag text of the demo data set, in the four languages.
type seedStatement struct {
	Category    string    // one of the eight category enums
	Contexts    []string  // one to three of ROMANTIC, FRIEND, FAMILY, WORK, ROOMMATE, ONLINE
	Lean        int       // how voters tend to see it: -1 mostly green, 0 divided, +1 mostly red
	Text        [4]string // tr, en, de, es
	Description [4]string // tr, en, de, es; "" means no description in that language
}

// seedStatements holds 20 statements per category, roughly a third each leaning red,
// green and divided. About half carry a description, some of them only in a few languages.
var seedStatements = []seedStatement{
	// CHARACTER
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "WORK", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Kanıt gözünün önündeyken bile hatasını asla kabul etmez",
			"Never admits being wrong, even with proof in front of them",
			"Gibt nie einen Fehler zu, nicht einmal bei klaren Beweisen",
			"Nunca admite un error, ni siquiera con pruebas delante",
		},
		Description: [4]string{
			"Tartışmalar ancak herkes pes edince biter.",
			"Arguments end only when everyone else gives up.",
			"Diskussionen enden erst, wenn alle anderen aufgeben.",
			"Las discusiones solo terminan cuando todos los demás se rinden.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Sonuna \"ama\" eklemeden içtenlikle özür diler",
			"Apologizes sincerely without adding a \"but\"",
			"Entschuldigt sich ehrlich, ohne ein „aber“ anzuhängen",
			"Pide perdón de verdad, sin añadir un «pero»",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Yemek geç gelse bile garsonlara kibar davranır",
			"Is kind to waiters even when the food is late",
			"Bleibt freundlich zu Kellnern, auch wenn das Essen auf sich warten lässt",
			"Es amable con los camareros aunque la comida tarde",
		},
		Description: [4]string{
			"Birinin garsonlara nasıl davrandığı onun hakkında çok şey söyler.",
			"How someone treats service staff says a lot about them.",
			"Wie jemand mit Servicepersonal umgeht, sagt viel über diesen Menschen aus.",
			"Cómo alguien trata al personal de servicio dice mucho de esa persona.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "WORK"}, Lean: 1,
		Text: [4]string{
			"Başkalarının hatalarına güler ama kendisine yapılan şakayı kaldıramaz",
			"Laughs at other people's mistakes but can't take a joke",
			"Lacht über die Fehler anderer, versteht aber selbst keinen Spaß",
			"Se ríe de los errores ajenos pero no aguanta una broma",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "FAMILY", "WORK"}, Lean: 0,
		Text: [4]string{
			"Kimse sormasa bile her konuda acımasızca dürüsttür",
			"Is brutally honest about everything, even when no one asked",
			"Ist in allem schonungslos ehrlich, auch wenn niemand fragt",
			"Dice verdades crudas sobre todo, aunque nadie le pregunte",
		},
		Description: [4]string{
			"Kimine göre ferahlatıcı, kimine göre düpedüz kaba.",
			"Some call it refreshing, others call it rude.",
			"Manche finden das erfrischend, andere einfach unhöflich.",
			"Para unos es refrescante; para otros, simplemente grosero.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "WORK", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Küçük de olsa verdiği sözleri tutar",
			"Keeps promises, even the small ones",
			"Hält Versprechen, auch die kleinen",
			"Cumple sus promesas, incluso las pequeñas",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Anlattığı her hikâyede mağdur hep kendisidir",
			"Is always the victim in every story they tell",
			"Ist in jeder eigenen Geschichte immer das Opfer",
			"Siempre es la víctima en todas sus historias",
		},
		Description: [4]string{
			"Her eski sevgilisi, her patronu ve her arkadaşı ona bir şekilde haksızlık etmiştir.",
			"Every ex, boss and friend somehow wronged them.",
			"",
			"Todos sus ex, jefes y amigos le hicieron daño de alguna manera.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Bir partiden sonra bütün gün yalnız kalmaya ihtiyaç duyar",
			"Needs to be alone for a whole day after a party",
			"Braucht nach einer Party einen ganzen Tag für sich allein",
			"Necesita un día entero a solas después de una fiesta",
		},
		Description: [4]string{
			"İçe dönükler böyle şarj olur; bunun seninle bir ilgisi yoktur.",
			"Introverts recharge this way; it says nothing about you.",
			"Introvertierte laden so ihre Akkus auf; mit dir hat das nichts zu tun.",
			"Así recargan pilas los introvertidos; no tiene nada que ver contigo.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"WORK", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"\"Bunu bilmiyorum\" demekten çekinmez",
			"Isn't afraid to say \"I don't know\"",
			"Sagt ohne Scheu „Das weiß ich nicht“",
			"No le da miedo decir «no lo sé»",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Arkadaşları başarılı olduğunda kıskanır",
			"Gets jealous when friends succeed",
			"Wird neidisch, wenn Freunde Erfolg haben",
			"Le da envidia que a sus amigos les vaya bien",
		},
		Description: [4]string{
			"İyi haberlerine hep soğuk bir \"güzel\" ile karşılık verir.",
			"Your good news always gets a cold \"nice\".",
			"Auf gute Nachrichten kommt immer nur ein kühles „schön“.",
			"Tus buenas noticias siempre reciben un frío «qué bien».",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"WORK", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Fikrini ortamdaki kişilere göre değiştirir",
			"Changes their opinion depending on who is in the room",
			"Ändert die Meinung je nachdem, wer gerade im Raum ist",
			"Cambia de opinión según quién esté en la sala",
		},
		Description: [4]string{
			"Patronun yanında başka, arkadaşların yanında başka konuşur.",
			"Says one thing in front of the boss and another with friends.",
			"",
			"",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "FAMILY", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Kutu oyunlarında bile aşırı rekabetçidir",
			"Is extremely competitive, even at board games",
			"Ist extrem ehrgeizig, sogar bei Brettspielen",
			"Compite a muerte hasta en los juegos de mesa",
		},
		Description: [4]string{
			"Onunla oyun gecesi asla sadece bir oyun değildir.",
			"Game night with them is never just a game.",
			"Ein Spieleabend ist mit dieser Person nie nur ein Spiel.",
			"Una noche de juegos con esta persona nunca es solo un juego.",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FAMILY", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Tartışmalarda bile sakin ve saygılı kalır",
			"Stays calm and respectful even during arguments",
			"Bleibt auch im Streit ruhig und respektvoll",
			"Mantiene la calma y el respeto en las discusiones",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"WORK", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Sadece işine yarayacak insanlara iyi davranır",
			"Is only nice to people who might be useful",
			"Ist nur zu Leuten nett, die nützlich sein könnten",
			"Solo es amable con quien le puede ser útil",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Filmlerde, hatta reklamlarda bile kolayca ağlar",
			"Cries easily at movies and even commercials",
			"Weint schnell bei Filmen und sogar bei Werbespots",
			"Llora con facilidad con películas e incluso con anuncios",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FAMILY", "WORK"}, Lean: 1,
		Text: [4]string{
			"Her tartışmada son sözü mutlaka kendisi söyler",
			"Always has to have the last word",
			"Muss immer das letzte Wort haben",
			"Siempre tiene que tener la última palabra",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"WORK"}, Lean: -1,
		Text: [4]string{
			"Başarıyı üstlenmek yerine emeği geçenlerin hakkını verir",
			"Gives others credit instead of taking it all",
			"Würdigt die Arbeit anderer, statt den Erfolg allein einzustreichen",
			"Reconoce el mérito de los demás en vez de apropiárselo",
		},
		Description: [4]string{
			"İşler iyi gidince \"biz\", kötü gidince \"ben\" der.",
			"Says \"we\" when it went well and \"I\" when it didn't.",
			"Bei Erfolg heißt es „wir“, bei Misserfolg „ich“.",
			"Cuando sale bien dice «nosotros»; cuando sale mal, «yo».",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"ROMANTIC", "FAMILY", "WORK"}, Lean: 0,
		Text: [4]string{
			"Bir kez karar verdiyse kimse fikrini değiştiremez",
			"Once their mind is made up, no one can change it",
			"Ist die Entscheidung einmal gefallen, kann niemand mehr etwas daran ändern",
			"Cuando toma una decisión, no hay quien le haga cambiar de idea",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Kendi kusurlarıyla dalga geçebilir",
			"Can laugh at their own flaws",
			"Kann über die eigenen Schwächen lachen",
			"Sabe reírse de sus propios defectos",
		},
	},
	{
		Category: "CHARACTER", Contexts: []string{"FRIEND", "WORK", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Neredeyse her şeye alaycı bir cevap verir",
			"Answers almost everything with sarcasm",
			"Antwortet auf fast alles mit Sarkasmus",
			"Responde a casi todo con sarcasmo",
		},
		Description: [4]string{
			"",
			"Hard to tell when they actually mean something.",
			"",
			"Cuesta saber cuándo habla en serio.",
		},
	},

	// BEHAVIORAL
	{
		Category: "BEHAVIORAL", Contexts: []string{"ONLINE", "FRIEND", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Mesajlara hiç cevap vermez ama hep çevrimiçidir",
			"Never replies to messages but is always online",
			"Antwortet nie auf Nachrichten, ist aber immer online",
			"Nunca contesta los mensajes, pero siempre está en línea",
		},
		Description: [4]string{
			"Mavi tikler gelir, cevap asla gelmez.",
			"The blue ticks appear, the reply never does.",
			"Die blauen Haken erscheinen, die Antwort nie.",
			"Aparece el doble check azul, pero la respuesta nunca llega.",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FAMILY", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Yaşlılara otobüste yer verir",
			"Gives up their seat to the elderly on the bus",
			"Bietet älteren Menschen im Bus den Sitzplatz an",
			"Cede el asiento a las personas mayores en el autobús",
		},
		Description: [4]string{
			"Kimse bakmıyorken bile bunu yapar.",
			"Does it even when nobody is watching.",
			"Auch dann, wenn niemand hinschaut.",
			"Incluso cuando nadie está mirando.",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FAMILY", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Akşam yemeğinde sürekli telefonuna bakar",
			"Checks their phone constantly during dinner",
			"Schaut beim Abendessen ständig aufs Handy",
			"Mira el móvil sin parar durante la cena",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FRIEND", "ROMANTIC", "WORK"}, Lean: 1,
		Text: [4]string{
			"Her buluşmaya en az yarım saat geç gelir",
			"Is always at least thirty minutes late",
			"Kommt grundsätzlich mindestens eine halbe Stunde zu spät",
			"Siempre llega al menos media hora tarde",
		},
		Description: [4]string{
			"",
			"And never texts to say so.",
			"Und sagt nie vorher Bescheid.",
			"",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FRIEND", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Ödünç aldığı şeyi aldığından daha iyi durumda geri verir",
			"Returns borrowed things in better shape than before",
			"Gibt Geliehenes in besserem Zustand zurück",
			"Devuelve lo prestado en mejor estado que antes",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Beğenmediği filmden yarısında kalkıp çıkar",
			"Walks out of movies they don't like halfway through",
			"Verlässt das Kino mittendrin, wenn der Film nicht gefällt",
			"Se va del cine a mitad de la película si no le gusta",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Alışveriş arabasını her seferinde yerine bırakır",
			"Puts the shopping cart back every single time",
			"Bringt den Einkaufswagen jedes Mal zurück",
			"Siempre devuelve el carrito de la compra a su sitio",
		},
		Description: [4]string{
			"Yağmur yağarken ve otopark kocamanken bile.",
			"Even when it's raining and the parking lot is huge.",
			"Auch bei Regen und auf einem riesigen Parkplatz.",
			"Incluso cuando llueve y el aparcamiento es enorme.",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FAMILY", "ROMANTIC", "ROOMMATE"}, Lean: 1,
		Text: [4]string{
			"Omzunun üstünden mesajlarını okur",
			"Reads your messages over your shoulder",
			"Liest über deine Schulter deine Nachrichten mit",
			"Lee tus mensajes por encima de tu hombro",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Her tatili saati saatine planlar",
			"Plans every vacation down to the hour",
			"Plant jeden Urlaub auf die Stunde genau",
			"Planifica cada viaje hora por hora",
		},
		Description: [4]string{
			"Spontanlık bile salı saat dörde planlanmıştır.",
			"Even spontaneity is scheduled for Tuesday at four.",
			"Sogar Spontaneität steht für Dienstag um vier im Plan.",
			"Hasta la espontaneidad está programada para el martes a las cuatro.",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Işık yeşile döner dönmez kornaya basar",
			"Honks the moment the light turns green",
			"Hupt in der Sekunde, in der die Ampel grün wird",
			"Toca el claxon en cuanto el semáforo se pone en verde",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROOMMATE", "FAMILY", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Kimse söylemeden kendi dağınıklığını toplar",
			"Cleans up after themselves without being asked",
			"Räumt hinter sich auf, ohne dass man etwas sagen muss",
			"Recoge lo que ensucia sin que nadie se lo pida",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FRIEND", "WORK"}, Lean: 1,
		Text: [4]string{
			"Tramvayda telefonda yüksek sesle konuşur",
			"Takes loud phone calls on the tram",
			"Telefoniert in der Straßenbahn in voller Lautstärke",
			"Habla a gritos por teléfono en el tranvía",
		},
		Description: [4]string{
			"Bütün tramvay artık onun hafta sonu planlarını biliyor.",
			"The whole tram now knows about their weekend plans.",
			"Die ganze Bahn kennt jetzt die Wochenendpläne.",
			"Todo el tranvía se entera de sus planes para el fin de semana.",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"WORK"}, Lean: 0,
		Text: [4]string{
			"Gece saat üçte e-postalara cevap yazar",
			"Replies to emails at three in the morning",
			"Beantwortet E-Mails um drei Uhr nachts",
			"Responde correos a las tres de la madrugada",
		},
		Description: [4]string{
			"Çalışkanlık mı, yoksa yakında sana da bulaşacak bir sınır sorunu mu?",
			"Dedication, or a boundary problem that will soon spread to you?",
			"Fleiß oder fehlende Grenzen, die bald auch dich betreffen?",
			"¿Dedicación o un problema de límites que pronto te tocará a ti?",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"WORK", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Arkasından gelen kişi için kapıyı tutar",
			"Holds the door for the person behind them",
			"Hält der Person hinter sich die Tür auf",
			"Sujeta la puerta a la persona que viene detrás",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Sormadan tabağından yemek alır",
			"Takes food from your plate without asking",
			"Isst ungefragt von deinem Teller",
			"Come de tu plato sin preguntar",
		},
		Description: [4]string{
			"",
			"Especially the fries.",
			"Vor allem die Pommes.",
			"¡Sobre todo las patatas fritas!",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FAMILY", "ROOMMATE", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Evden hep son dakikada çıkar",
			"Always leaves the house at the very last minute",
			"Verlässt das Haus immer in letzter Minute",
			"Siempre sale de casa en el último minuto",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Sokakta başkalarının attığı çöpleri toplar",
			"Picks up other people's litter from the street",
			"Hebt fremden Müll von der Straße auf",
			"Recoge de la calle la basura de otros",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROOMMATE", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Kirli bulaşıkları günlerce evyede biriktirir",
			"Leaves dirty dishes in the sink for days",
			"Lässt dreckiges Geschirr tagelang in der Spüle stehen",
			"Deja los platos sucios en el fregadero durante días",
		},
		Description: [4]string{
			"Buna \"ıslatmaya bıraktım\" diyor.",
			"They call it \"letting them soak\".",
			"Das nennt sich dann „Einweichen“.",
			"Lo llama «dejarlos en remojo».",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROOMMATE", "ROMANTIC", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Sabah uyanmak için on tane alarm kurar",
			"Sets ten alarms to wake up in the morning",
			"Stellt sich morgens zehn Wecker",
			"Pone diez alarmas para despertarse por la mañana",
		},
	},
	{
		Category: "BEHAVIORAL", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Eve sağ salim varıp varmadığını sormak için mesaj atar",
			"Texts to check that you got home safe",
			"Schreibt, um zu fragen, ob du gut nach Hause gekommen bist",
			"Te escribe para saber si llegaste bien a casa",
		},
		Description: [4]string{
			"Gerçek bir ilgiyi gösteren küçük bir alışkanlık.",
			"A small habit that shows real care.",
			"Eine kleine Geste, die echte Fürsorge zeigt.",
			"Un pequeño gesto que demuestra que le importas.",
		},
	},

	// CULTURAL
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Aileni şaşırtmak için senin dilinden birkaç kelime öğrenir",
			"Learns a few words of your language to surprise your parents",
			"Lernt ein paar Wörter deiner Sprache, um deine Eltern zu überraschen",
			"Aprende unas palabras de tu idioma para sorprender a tus padres",
		},
		Description: [4]string{
			"Büyükannen bundan yıllarca bahseder.",
			"Your grandmother will talk about it for years.",
			"Deine Großmutter wird noch jahrelang davon erzählen.",
			"Tu abuela hablará de ello durante años.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FRIEND", "WORK", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Başkalarının önünde aksanınla dalga geçer",
			"Makes fun of your accent in front of others",
			"Macht sich vor anderen über deinen Akzent lustig",
			"Se burla de tu acento delante de otros",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Başka bir ülkenin yemeğini denemeyi kesinlikle reddeder",
			"Refuses to try any food from another country",
			"Weigert sich, Essen aus anderen Ländern auch nur zu probieren",
			"Se niega a probar comida de cualquier otro país",
		},
		Description: [4]string{
			"Onunla seyahat, her şehirde hamburger demektir.",
			"Traveling with them means a burger in every city.",
			"",
			"Viajar con esta persona significa una hamburguesa en cada ciudad.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FAMILY", "FRIEND", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Kimse söylemeden kapıda ayakkabılarını çıkarır",
			"Takes off their shoes at the door without being told",
			"Zieht an der Tür ungefragt die Schuhe aus",
			"Se quita los zapatos en la puerta sin que se lo digan",
		},
		Description: [4]string{
			"Birçok evde bu zaten beklenen bir şeydir.",
			"In many homes this is simply expected.",
			"In vielen Haushalten wird das einfach erwartet.",
			"En muchas casas es algo que se da por hecho.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FRIEND", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Her kültürden her bayramı kutlar",
			"Celebrates every holiday, from every culture",
			"Feiert jedes Fest, egal aus welcher Kultur",
			"Celebra todas las fiestas, sean de la cultura que sean",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"WORK", "FRIEND", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"İnsanları geldikleri ülkeye göre yargılar",
			"Judges people by the country they come from",
			"Beurteilt Menschen nach ihrem Herkunftsland",
			"Juzga a la gente por el país de donde viene",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Geleneklerini sorar ve gerçekten dinler",
			"Asks about your traditions and actually listens",
			"Fragt nach deinen Traditionen und hört wirklich zu",
			"Pregunta por tus tradiciones y escucha de verdad",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Otuz yaşında hâlâ annesiyle babasıyla yaşıyor",
			"Still lives with their parents at thirty",
			"Wohnt mit dreißig noch bei den Eltern",
			"Con treinta años todavía vive con sus padres",
		},
		Description: [4]string{
			"Bazı ülkelerde gayet normal, bazılarında ise bir uyarı işareti.",
			"Normal in some countries, a warning sign in others.",
			"In manchen Ländern völlig normal, in anderen ein Warnsignal.",
			"En algunos países es lo normal; en otros, una señal de alarma.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"WORK", "FRIEND", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Durmadan \"Peki aslen nerelisin?\" diye sorar",
			"Keeps asking where you're \"really\" from",
			"Fragt ständig, woher du „wirklich“ kommst",
			"No para de preguntar de dónde eres «de verdad»",
		},
		Description: [4]string{
			"Bir kez sorulursa merak, üç kez sorulursa başka bir şeydir.",
			"Asked once, it's curiosity; asked three times, it's something else.",
			"Einmal gefragt ist es Neugier, dreimal gefragt etwas anderes.",
			"Preguntarlo una vez es curiosidad; tres veces, otra cosa.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FAMILY", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Yemeğe davet edildiğinde asla eli boş gelmez",
			"Never arrives empty-handed when invited to dinner",
			"Erscheint bei Einladungen zum Essen nie mit leeren Händen",
			"Nunca llega con las manos vacías cuando le invitan a cenar",
		},
		Description: [4]string{
			"Çiçek, tatlı ya da bir şişe şarap; ama asla eli boş.",
			"Flowers, dessert or a bottle of wine, but never nothing.",
			"Blumen, Nachtisch oder eine Flasche Wein, aber nie nichts.",
			"Flores, un postre o una botella de vino, pero nunca nada.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FAMILY", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Doyduğunu söylesen de \"bir tabak daha\" diye ısrar eder",
			"Insists on \"one more plate\" even after you say you're full",
			"Besteht auf „noch einem Teller“, auch wenn du satt bist",
			"Insiste en «otro platito» aunque ya no puedas más",
		},
		Description: [4]string{
			"Misafirperverlik mi, baskı mı? Karar senin.",
			"Hospitality or pressure? You decide.",
			"",
			"",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FRIEND", "WORK", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Başkalarının dinî gelenekleriyle alay eder",
			"Mocks other people's religious customs",
			"Macht sich über die religiösen Bräuche anderer lustig",
			"Se burla de las costumbres religiosas de los demás",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Sadece kendi dilindeki şarkıları dinler",
			"Only listens to music in their own language",
			"Hört nur Musik in der eigenen Sprache",
			"Solo escucha música en su propio idioma",
		},
		Description: [4]string{
			"",
			"Has never even heard of the bands you love.",
			"Kennt keine einzige deiner Lieblingsbands.",
			"",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Gittiği yerin âdetlerine saygı gösterir",
			"Respects local customs wherever they travel",
			"Respektiert auf Reisen die Bräuche vor Ort",
			"Respeta las costumbres locales allá donde viaja",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Yurt dışında yüksek sesle \"Bizde böyle değil\" diye söylenir",
			"Complains loudly abroad that nothing is like back home",
			"Beschwert sich im Ausland lautstark, dass nichts wie zu Hause ist",
			"Se queja a voces en el extranjero de que nada es como en casa",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FRIEND", "WORK"}, Lean: 0,
		Text: [4]string{
			"Selamlaşırken herkesi iki yanağından öper",
			"Kisses everyone on both cheeks when saying hello",
			"Begrüßt alle mit Küsschen auf beide Wangen",
			"Saluda a todo el mundo con dos besos",
		},
		Description: [4]string{
			"İspanya'da gayet normal, başka yerlerde tuhaf kaçabilir.",
			"Perfectly normal in Spain, awkward elsewhere.",
			"In Spanien ganz normal, anderswo eher unangenehm.",
			"En España es lo más normal del mundo; en otros sitios, incómodo.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"FRIEND", "WORK", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Bayramlarını hiç unutmaz, mutlaka kutlar",
			"Never forgets your holidays and always sends wishes",
			"Vergisst nie deine Feiertage und schickt immer Glückwünsche",
			"Nunca olvida tus fiestas y siempre te felicita",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FAMILY", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Anlamayasın diye başka bir dile geçer",
			"Switches to another language so you won't understand",
			"Wechselt die Sprache, damit du nichts verstehst",
			"Cambia de idioma para que no te enteres",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Her bayram aile ziyaretine gelmeni bekler",
			"Expects you at every family gathering on holidays",
			"Erwartet, dass du an jedem Feiertag zur Familie mitkommst",
			"Espera que vayas a todas las reuniones familiares en fiestas",
		},
		Description: [4]string{
			"Her bayram, her akraba, istisnasız.",
			"Every holiday, every relative, no exceptions.",
			"Jeder Feiertag, jede Tante, keine Ausnahme.",
			"Cada fiesta, cada pariente, sin excepciones.",
		},
	},
	{
		Category: "CULTURAL", Contexts: []string{"ROMANTIC", "FAMILY", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Sana büyükannesinin tariflerini yapmayı öğretir",
			"Teaches you to cook their grandmother's recipes",
			"Bringt dir die Rezepte der eigenen Großmutter bei",
			"Te enseña a cocinar las recetas de su abuela",
		},
	},

	// RELATIONSHIP
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Eski sevgilisiyle hâlâ her gün konuşur",
			"Still talks to their ex every day",
			"Schreibt immer noch täglich mit dem Ex",
			"Sigue hablando con su ex todos los días",
		},
		Description: [4]string{
			"Standart açıklaması hazır: \"Sadece arkadaşız.\"",
			"\"We're just friends\" is the standard explanation.",
			"Die Standarderklärung lautet: „Wir sind nur Freunde.“",
			"La explicación de siempre: «Solo somos amigos».",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Seni daha ilk haftalarda arkadaşlarıyla tanıştırır",
			"Introduces you to their friends early on",
			"Stellt dich schon früh den eigenen Freunden vor",
			"Te presenta a sus amigos desde el principio",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Sen duştayken telefonunu karıştırır",
			"Goes through your phone while you're in the shower",
			"Durchsucht dein Handy, während du unter der Dusche stehst",
			"Te revisa el móvil mientras te duchas",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"İkinci buluşmada \"Seni seviyorum\" der",
			"Says \"I love you\" on the second date",
			"Sagt beim zweiten Date „Ich liebe dich“",
			"Dice «te quiero» en la segunda cita",
		},
		Description: [4]string{
			"Kimine tatlı gelir, çoğuna fazla hızlı.",
			"Sweet to some, far too fast for most.",
			"Für manche süß, für die meisten viel zu schnell.",
			"Para algunos es tierno; para la mayoría, demasiado rápido.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Haftalar önce bahsettiğin küçük ayrıntıları hatırlar",
			"Remembers small details you mentioned weeks ago",
			"Erinnert sich an Kleinigkeiten, die du vor Wochen erwähnt hast",
			"Recuerda pequeños detalles que mencionaste hace semanas",
		},
		Description: [4]string{
			"En sevdiğin atıştırmalık ya da diş randevun gibi.",
			"Like your favorite snack or your dentist appointment.",
			"Etwa deinen Lieblingssnack oder deinen Zahnarzttermin.",
			"Como tu aperitivo favorito o tu cita con el dentista.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"\"Çiftler her şeyi paylaşır\" diyerek şifrelerini ister",
			"Wants your passwords \"because couples share everything\"",
			"Will deine Passwörter, „weil Paare alles teilen“",
			"Quiere tus contraseñas «porque las parejas lo comparten todo»",
		},
		Description: [4]string{
			"Güven, şifre teslim ederek kurulmaz.",
			"Trust isn't built by handing over access.",
			"Vertrauen entsteht nicht durch Zugangsdaten.",
			"La confianza no se construye entregando contraseñas.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FRIEND", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"İhtiyacın olduğunda sana alan tanır",
			"Gives you space when you need it",
			"Lässt dir Freiraum, wenn du ihn brauchst",
			"Te da espacio cuando lo necesitas",
		},
		Description: [4]string{
			"Sessiz bir akşama ihtiyacın olduğunda bunu kişisel algılamaz.",
			"Doesn't take it personally when you need a quiet evening.",
			"",
			"No se lo toma como algo personal si necesitas una noche tranquila.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Her boş dakikasını seninle geçirmek ister",
			"Wants to spend every free minute together",
			"Will jede freie Minute mit dir verbringen",
			"Quiere pasar contigo cada minuto libre",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Seni sürekli eski sevgilisiyle karşılaştırır",
			"Compares you to their ex all the time",
			"Vergleicht dich ständig mit früheren Partnern",
			"Te compara todo el rato con su ex",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Ailen zor insanlar olsa da onlara nazik davranır",
			"Is kind to your family even when they're difficult",
			"Ist nett zu deiner Familie, auch wenn sie schwierig ist",
			"Es amable con tu familia aunque sea complicada",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Daha ikinci ayda birlikte yaşamayı teklif eder",
			"Wants to move in together after two months",
			"Will nach zwei Monaten schon zusammenziehen",
			"Quiere irse a vivir juntos a los dos meses",
		},
		Description: [4]string{
			"Romantik mi aceleci mi? Fikirler ikiye bölünmüş.",
			"Romantic or rushed? Opinions are split.",
			"Romantisch oder überstürzt? Die Meinungen gehen auseinander.",
			"¿Romántico o precipitado? Las opiniones están divididas.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FAMILY", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Her kavgadan sonra günlerce küser",
			"Goes silent for days after every argument",
			"Schweigt nach jedem Streit tagelang",
			"Deja de hablarte durante días después de cada pelea",
		},
		Description: [4]string{
			"Küsmek, tartışmalardaki tek silahıdır.",
			"The silent treatment is their only way of fighting.",
			"",
			"",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Başarılarını kendi başarısıymış gibi kutlar",
			"Celebrates your wins like they were their own",
			"Freut sich über deine Erfolge, als wären es die eigenen",
			"Celebra tus logros como si fueran suyos",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"İlişkiniz hakkında her gün paylaşım yapar",
			"Posts about the relationship every single day",
			"Postet jeden Tag etwas über eure Beziehung",
			"Publica algo sobre vuestra relación todos los días",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Arkadaşlarınla vakit geçirdiğinde sinirlenir",
			"Gets angry when you spend time with your friends",
			"Wird sauer, wenn du Zeit mit deinen Freunden verbringst",
			"Se enfada cuando pasas tiempo con tus amigos",
		},
		Description: [4]string{
			"Zamanla kendini başka kimseyle görüşmezken bulursun.",
			"Slowly, you end up seeing no one else.",
			"Nach und nach triffst du niemanden mehr.",
			"Poco a poco, acabas sin ver a nadie más.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Kavgadan sonra barışmak için ilk adımı atar",
			"Makes the first move to make up after a fight",
			"Macht nach einem Streit den ersten Schritt zur Versöhnung",
			"Da el primer paso para reconciliarse después de una pelea",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "FAMILY", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Konumunu seninle sürekli paylaşır",
			"Shares their location with you permanently",
			"Teilt dauerhaft den eigenen Standort mit dir",
			"Comparte su ubicación contigo de forma permanente",
		},
		Description: [4]string{
			"Kimine güven verir, kimini boğar.",
			"Comforting for some, suffocating for others.",
			"Für manche beruhigend, für andere erdrückend.",
			"Para unos da tranquilidad; para otros, agobia.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Buluşmaları sadece kendine göre değil, senin programına göre de planlar",
			"Plans dates around your schedule, not just theirs",
			"Plant Dates nach deinem Kalender, nicht nur nach dem eigenen",
			"Organiza las citas según tu agenda, no solo la suya",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Daha ilk haftada seni hediyelere ve büyük sözlere boğar",
			"Showers you with gifts and big promises in the first week",
			"Überhäuft dich in der ersten Woche mit Geschenken und großen Versprechen",
			"La primera semana te llena de regalos y grandes promesas",
		},
		Description: [4]string{
			"Klasik \"love bombing\": önce yoğun ilgi, sonra soğukluk.",
			"Classic love bombing: intense at first, then cold.",
			"Klassisches Love-Bombing: erst überwältigend, dann eiskalt.",
			"El clásico love bombing: primero intensidad, luego frialdad.",
		},
	},
	{
		Category: "RELATIONSHIP", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Telefonunda hâlâ eski sevgilisinin fotoğraflarını saklar",
			"Still keeps photos of their ex on their phone",
			"Hat noch immer Fotos der letzten Beziehung auf dem Handy",
			"Todavía guarda fotos de su ex en el móvil",
		},
	},

	// COMMUNICATION
	{
		Category: "COMMUNICATION", Contexts: []string{"ONLINE", "ROMANTIC", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Uzun mesajlara sadece \"tmm\" diye cevap verir",
			"Replies to long messages with a single \"k\"",
			"Antwortet auf lange Nachrichten nur mit „ok“",
			"Responde a mensajes largos solo con un «ok»",
		},
		Description: [4]string{
			"Üç paragraflık mesajın üç harften fazlasını hak ediyordu.",
			"Your three paragraphs deserved more than one letter.",
			"Deine drei Absätze hätten mehr als zwei Buchstaben verdient.",
			"Tus tres párrafos merecían más que dos letras.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "ROOMMATE", "WORK"}, Lean: -1,
		Text: [4]string{
			"Bir şey canını sıktığında bunu sana doğrudan söyler",
			"Tells you directly when something bothers them",
			"Spricht offen an, wenn etwas stört",
			"Te dice directamente cuando algo le molesta",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "WORK", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Sözünü yarıda kesip kendinden bahsetmeye başlar",
			"Interrupts you mid-sentence to talk about themselves",
			"Unterbricht dich mitten im Satz, um von sich zu erzählen",
			"Te interrumpe a mitad de frase para hablar de su vida",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ONLINE", "FRIEND", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Beş dakikalık sesli mesajlar gönderir",
			"Sends voice messages that are five minutes long",
			"Schickt fünf Minuten lange Sprachnachrichten",
			"Manda audios de cinco minutos",
		},
		Description: [4]string{
			"Gönderen için pratik, senin için bir podcast.",
			"Convenient for the sender, a podcast for you.",
			"Praktisch für den Absender, ein Podcast für dich.",
			"Cómodo para quien lo envía, un pódcast para ti.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "ROMANTIC", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Bir şey anlattığında ayrıntılarını merakla sorar",
			"Asks follow-up questions when you tell a story",
			"Stellt Nachfragen, wenn du etwas erzählst",
			"Hace preguntas cuando le cuentas algo",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ONLINE", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Tartışmanın ortasında mesajını görüp cevap vermez",
			"Leaves you on read in the middle of an argument",
			"Liest deine Nachrichten im Streit und antwortet einfach nicht",
			"Te deja en visto en mitad de una discusión",
		},
		Description: [4]string{
			"Görüldü: 21.04. Cevap hâlâ yok.",
			"Seen at 9:04 p.m. Still no answer.",
			"",
			"Visto a las 21:04. Sigue sin respuesta.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"WORK", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"İş e-postalarında bolca emoji kullanır",
			"Uses lots of emojis in work emails",
			"Benutzt in beruflichen E-Mails jede Menge Emojis",
			"Usa muchísimos emojis en los correos de trabajo",
		},
		Description: [4]string{
			"Bazı iş arkadaşlarına samimi, bazılarına profesyonellikten uzak gelir.",
			"Friendly to some colleagues, unprofessional to others.",
			"Manche im Team finden das sympathisch, andere unprofessionell.",
			"A unos compañeros les parece cercano; a otros, poco profesional.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "ROMANTIC", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Önemli bir konu olduğunda mesaj yerine arar",
			"Calls instead of texting when it's important",
			"Ruft an, statt zu schreiben, wenn es wichtig ist",
			"Llama en lugar de escribir cuando es importante",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "FAMILY", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Sadece bir şeye ihtiyacı olduğunda mesaj atar",
			"Only texts when they need something",
			"Meldet sich nur, wenn ein Gefallen gebraucht wird",
			"Solo te escribe cuando necesita algo",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ONLINE", "WORK"}, Lean: 0,
		Text: [4]string{
			"Mesajlarında hiç noktalama işareti kullanmaz",
			"Never uses punctuation in messages",
			"Verwendet in Nachrichten nie Satzzeichen",
			"Nunca usa signos de puntuación en los mensajes",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "FAMILY", "WORK"}, Lean: 1,
		Text: [4]string{
			"Aynı fikirde olmadığında hemen sesini yükseltir",
			"Raises their voice whenever they disagree",
			"Wird sofort laut, sobald es Widerspruch gibt",
			"Levanta la voz en cuanto no está de acuerdo",
		},
		Description: [4]string{
			"Her fikir ayrılığı bir bağırma yarışına döner.",
			"Every disagreement turns into a shouting match.",
			"Jede Meinungsverschiedenheit endet im Geschrei.",
			"Cualquier desacuerdo acaba en gritos.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Seni dinlerken telefonuna bakmaz",
			"Listens without looking at their phone",
			"Hört zu, ohne aufs Handy zu schauen",
			"Te escucha sin mirar el móvil",
		},
		Description: [4]string{
			"Tüm dikkati sendedir.",
			"You have their full attention.",
			"Du hast die volle Aufmerksamkeit.",
			"Tienes toda su atención.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "WORK"}, Lean: 0,
		Text: [4]string{
			"Her soruya başka bir soruyla cevap verir",
			"Answers every question with another question",
			"Beantwortet jede Frage mit einer Gegenfrage",
			"Responde a cada pregunta con otra pregunta",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Sinirlendiğinde sana \"Sakin ol\" der",
			"Tells you to \"calm down\" when you're upset",
			"Sagt „Beruhig dich“, wenn du aufgebracht bist",
			"Te dice «cálmate» cuando algo te altera",
		},
		Description: [4]string{
			"Bu söz bugüne kadar kimseyi sakinleştirmedi.",
			"It has never once calmed anyone down.",
			"Das hat noch nie jemanden beruhigt.",
			"Eso nunca ha calmado a nadie.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "FRIEND", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Surat asmak yerine neden kırıldığını anlatır",
			"Explains why they're upset instead of sulking",
			"Erklärt, was los ist, statt beleidigt zu schweigen",
			"Explica qué le pasa en vez de poner mala cara",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"\"Konuşmamız lazım\" yazıp çevrimdışı olur",
			"Texts \"we need to talk\" and then goes offline",
			"Schreibt „Wir müssen reden“ und geht dann offline",
			"Escribe «tenemos que hablar» y se desconecta",
		},
		Description: [4]string{
			"Sonra sen saatlerce kafanda senaryo yazarsın.",
			"And leaves you spiraling for hours.",
			"",
			"",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"FRIEND", "FAMILY", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Telefonla konuşmak yerine her zaman mesajlaşmayı tercih eder",
			"Always prefers texting to phone calls",
			"Schreibt lieber Nachrichten, als zu telefonieren",
			"Prefiere siempre escribir a hablar por teléfono",
		},
		Description: [4]string{
			"Kimine göre kaçış, kimine göre sadece modern bir alışkanlık.",
			"Some see it as avoidance, others as simply modern.",
			"Für manche ist das Vermeidung, für andere einfach zeitgemäß.",
			"Para unos es evasión; para otros, lo normal hoy en día.",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "ONLINE"}, Lean: -1,
		Text: [4]string{
			"Ne kadar yoğun olsa da her sabah günaydın mesajı atar",
			"Texts good morning every day, even on busy days",
			"Schreibt jeden Morgen „Guten Morgen“, auch wenn viel los ist",
			"Te da los buenos días cada mañana, aunque tenga mucho trabajo",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 0,
		Text: [4]string{
			"Ailenin yanında bile bolca küfreder",
			"Swears a lot, even in front of your parents",
			"Flucht viel, sogar vor deinen Eltern",
			"Dice muchas palabrotas, incluso delante de tus padres",
		},
	},
	{
		Category: "COMMUNICATION", Contexts: []string{"WORK", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Dürüst eleştirisini kırıcı olmadan yapar",
			"Gives honest feedback in a kind way",
			"Gibt ehrliches Feedback, aber auf freundliche Art",
			"Da su opinión sincera sin ser hiriente",
		},
		Description: [4]string{
			"Nerede durduğunu hep bilirsin ve bu seni hiç incitmez.",
			"You always know where you stand, and it never stings.",
			"Du weißt immer, woran du bist, und es tut nie weh.",
			"Siempre sabes en qué punto estás, y nunca duele.",
		},
	},

	// LIFESTYLE
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Her sabah saat beşte spor salonuna gider",
			"Goes to the gym every morning at five",
			"Geht jeden Morgen um fünf Uhr ins Fitnessstudio",
			"Va al gimnasio todas las mañanas a las cinco",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROOMMATE", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Çarşaflarını aylarca yıkamaz",
			"Goes months without washing their sheets",
			"Wäscht die Bettwäsche nur alle paar Monate",
			"Pasa meses sin lavar las sábanas",
		},
		Description: [4]string{
			"Onda çamaşır günü yok, çamaşır mevsimi var.",
			"Laundry day is more of a laundry season.",
			"Waschtag? Eher Waschsaison.",
			"Más que día de colada, tiene temporada de colada.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Tek başına yerken bile kendine düzgün bir yemek pişirir",
			"Cooks a proper meal even when eating alone",
			"Kocht sich auch allein ein richtiges Essen",
			"Se prepara una comida de verdad aunque coma sin compañía",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "FRIEND", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Hiçbir sosyal medya hesabı yoktur",
			"Has no social media accounts at all",
			"Hat überhaupt keine Social-Media-Konten",
			"No tiene ninguna cuenta en redes sociales",
		},
		Description: [4]string{
			"Ya çok gizemli ya da çok huzurlu biri.",
			"Either very mysterious or very well adjusted.",
			"Entweder sehr geheimnisvoll oder sehr ausgeglichen.",
			"O es todo un misterio o vive muy en paz.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROOMMATE", "ROMANTIC", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Her gün öğleden sonra ikiye kadar uyur",
			"Sleeps until two in the afternoon every day",
			"Schläft jeden Tag bis zwei Uhr nachmittags",
			"Duerme todos los días hasta las dos de la tarde",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Yatmadan önce telefonda gezinmek yerine kitap okur",
			"Reads a book before bed instead of scrolling",
			"Liest vor dem Schlafen ein Buch, statt am Handy zu scrollen",
			"Lee un libro antes de dormir en lugar de mirar el móvil",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Dört kedisi var ve gün boyu onlarla konuşur",
			"Has four cats and talks to them all day",
			"Hat vier Katzen und redet den ganzen Tag mit ihnen",
			"Tiene cuatro gatos y les habla todo el día",
		},
		Description: [4]string{
			"",
			"Cat lovers will see this as a huge green flag.",
			"",
			"Para los amantes de los gatos, esto es una bandera verde enorme.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "FAMILY", "ROOMMATE"}, Lean: 1,
		Text: [4]string{
			"\"Rahatlamak için\" her akşam içer",
			"Drinks every night \"to relax\"",
			"Trinkt jeden Abend etwas, „um runterzukommen“",
			"Bebe todas las noches «para relajarse»",
		},
		Description: [4]string{
			"Bir kadeh ikiye, iki de her akşama dönüştü.",
			"One glass became two, and two became every night.",
			"Aus einem Glas wurden zwei, aus zwei jeden Abend.",
			"Una copa se convirtió en dos, y dos en todas las noches.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROOMMATE", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Evini temiz ve düzenli tutar",
			"Keeps their home clean and tidy",
			"Hält die Wohnung sauber und ordentlich",
			"Tiene la casa limpia y ordenada",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"FRIEND", "FAMILY", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Vegandır ve bunu her yemekte mutlaka söyler",
			"Is vegan and mentions it at every meal",
			"Ist vegan und erwähnt es bei jeder Mahlzeit",
			"Sigue una dieta vegana y lo recuerda en cada comida",
		},
		Description: [4]string{
			"",
			"The food is great; the lecture is optional.",
			"Das Essen ist super, der Vortrag dazu freiwillig.",
			"La comida está genial; el sermón, opcional.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Ertesi gün iş olsa da sabaha kadar oyun oynar",
			"Plays video games until sunrise before work days",
			"Zockt unter der Woche bis zum Sonnenaufgang",
			"Juega a videojuegos hasta el amanecer aunque al día siguiente trabaje",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"İlişkinin dışında da kendi hobileri ve arkadaşları vardır",
			"Has hobbies and friends outside the relationship",
			"Hat eigene Hobbys und Freunde außerhalb der Beziehung",
			"Tiene aficiones y amigos propios fuera de la relación",
		},
		Description: [4]string{
			"Kendine ait bir hayatı olmak ilişkiyi daha sağlıklı kılar.",
			"A life of their own makes a relationship healthier.",
			"Ein eigenes Leben macht eine Beziehung gesünder.",
			"Tener vida propia hace que la relación sea más sana.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Her iki yılda bir başka bir şehre taşınır",
			"Moves to a new city every two years",
			"Zieht alle zwei Jahre in eine neue Stadt",
			"Se muda a una ciudad nueva cada dos años",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROOMMATE", "WORK"}, Lean: 1,
		Text: [4]string{
			"Yazın bile pencereleri hiç açmaz",
			"Never opens the windows, not even in summer",
			"Öffnet nie die Fenster, nicht einmal im Sommer",
			"Nunca abre las ventanas, ni siquiera en verano",
		},
		Description: [4]string{
			"Odada geçen haftanın kokusu var.",
			"The room smells like last week.",
			"Im Zimmer riecht es nach letzter Woche.",
			"La habitación huele a la semana pasada.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Her yere yürür ve şehirdeki bütün kestirmeleri bilir",
			"Walks everywhere and knows every shortcut in town",
			"Geht überall zu Fuß hin und kennt jede Abkürzung",
			"Va andando a todas partes y conoce todos los atajos",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Her hafta sonunu dağlarda yürüyüş yaparak geçirir",
			"Spends every weekend hiking in the mountains",
			"Verbringt jedes Wochenende mit Wandern in den Bergen",
			"Pasa todos los fines de semana haciendo senderismo en la montaña",
		},
		Description: [4]string{
			"Gün doğumunda zirveye çıkma davetine hazır ol.",
			"Expect an invitation to a sunrise summit.",
			"Rechne mit einer Einladung zum Gipfel bei Sonnenaufgang.",
			"Prepárate para una invitación a ver el amanecer desde la cima.",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROOMMATE", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Buzdolabında enerji içeceğinden başka bir şey yoktur",
			"Has nothing but energy drinks in the fridge",
			"Hat nichts als Energydrinks im Kühlschrank",
			"No tiene nada en la nevera salvo bebidas energéticas",
		},
		Description: [4]string{
			"Bir de köşede tek başına duran bir limon.",
			"And a single, lonely lemon.",
			"",
			"",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Bitkilerine ailesinden biri gibi bakar",
			"Takes care of their plants like they're family",
			"Kümmert sich um Zimmerpflanzen wie um Familienmitglieder",
			"Cuida sus plantas como si fueran de la familia",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"On iki adımlık katı bir cilt bakım rutini vardır",
			"Has a strict twelve-step skincare routine",
			"Hat eine strenge Hautpflege-Routine mit zwölf Schritten",
			"Sigue una rutina de cuidado de la piel de doce pasos",
		},
		Description: [4]string{
			"Disiplin mi, yoksa her gece banyoda yirmi dakika mı?",
			"Discipline, or twenty minutes in the bathroom every night?",
			"Disziplin oder jeden Abend zwanzig Minuten im Bad?",
			"¿Disciplina o veinte minutos en el baño cada noche?",
		},
	},
	{
		Category: "LIFESTYLE", Contexts: []string{"ROMANTIC", "ROOMMATE"}, Lean: 1,
		Text: [4]string{
			"Her akşam dışarıdan yemek söyler",
			"Orders takeout every single night",
			"Bestellt jeden Abend Essen beim Lieferdienst",
			"Pide comida a domicilio todas las noches",
		},
	},

	// FINANCIAL
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"İlk buluşmada hesabı kuruşu kuruşuna böler",
			"Splits the bill to the cent on a first date",
			"Teilt beim ersten Date die Rechnung auf den Cent genau",
			"En la primera cita divide la cuenta hasta el último céntimo",
		},
		Description: [4]string{
			"Kimin fazladan patates kızartması yediğine kadar hesaplar.",
			"Down to who had the extra side of fries.",
			"",
			"Hasta quién pidió la ración extra de patatas.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "FAMILY", "ROOMMATE"}, Lean: -1,
		Text: [4]string{
			"Ödünç aldığı parayı sen istemeden geri öder",
			"Pays back borrowed money before you have to ask",
			"Zahlt geliehenes Geld zurück, bevor du fragen musst",
			"Devuelve el dinero prestado antes de que se lo pidas",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "FAMILY", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Borç para alır ve bir daha hiç lafını etmez",
			"Borrows money and never mentions it again",
			"Leiht sich Geld und spricht nie wieder davon",
			"Te pide dinero prestado y nunca vuelve a mencionarlo",
		},
		Description: [4]string{
			"Nedense konuyu açmak sana mahcubiyet verir.",
			"Somehow you end up feeling awkward for bringing it up.",
			"Am Ende ist es irgendwie dir peinlich, danach zu fragen.",
			"De alguna forma, eres tú quien siente vergüenza al sacar el tema.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "ROOMMATE", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Her harcamasını tek tek bir tabloya yazar",
			"Tracks every single expense in a spreadsheet",
			"Trägt jede einzelne Ausgabe in eine Tabelle ein",
			"Apunta cada gasto en una hoja de cálculo",
		},
		Description: [4]string{
			"Ortak tatillerde harika, spontane planlarda yorucu.",
			"Great for shared trips, exhausting for spontaneous plans.",
			"Super für gemeinsame Reisen, anstrengend für spontane Pläne.",
			"Genial para los viajes compartidos, agotador para los planes improvisados.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Ne aldığını görmeyesin diye alışveriş poşetlerini saklar",
			"Hides shopping bags so you won't see what they bought",
			"Versteckt Einkaufstüten, damit du die Käufe nicht siehst",
			"Esconde las bolsas de sus compras para que no veas lo que gastó",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Ne olursa olsun her ay biraz para biriktirir",
			"Saves a little every month, no matter what",
			"Legt jeden Monat etwas Geld zur Seite, egal was kommt",
			"Ahorra un poco cada mes, pase lo que pase",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "FAMILY", "WORK"}, Lean: 0,
		Text: [4]string{
			"Hesabı kimseye bırakmaz, hep kendisi öder",
			"Always insists on paying for everyone",
			"Besteht immer darauf, für alle zu bezahlen",
			"Siempre insiste en pagar por todos",
		},
		Description: [4]string{
			"Türkiye'de hesap kavgası neredeyse bir gelenektir.",
			"In Turkey, fighting over the bill is almost a tradition.",
			"In der Türkei ist der Streit um die Rechnung fast Tradition.",
			"En Turquía, pelearse por pagar la cuenta es casi una tradición.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Kredi kartlarının limiti dolmuş ama yine de en yeni telefonu alır",
			"Has maxed-out credit cards but buys the newest phone",
			"Hat die Kreditkarten ausgereizt, kauft aber das neueste Handy",
			"Tiene las tarjetas al límite, pero se compra el último móvil",
		},
		Description: [4]string{
			"Öncelikler maaştan daha çok şey söyler.",
			"Priorities say more than salaries.",
			"Prioritäten sagen mehr als das Gehalt.",
			"Las prioridades dicen más que el sueldo.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Borçlarını en baştan açıkça söyler",
			"Is open about their debts from the start",
			"Spricht von Anfang an offen über die eigenen Schulden",
			"Habla de sus deudas con sinceridad desde el principio",
		},
		Description: [4]string{
			"Konuşması keyifli değil ama güven oluşturur.",
			"Not a fun topic, but it builds trust.",
			"Kein schönes Thema, aber es schafft Vertrauen.",
			"No es un tema agradable, pero genera confianza.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"İndirimde olmayan hiçbir şeyi almaz",
			"Never buys anything that isn't on sale",
			"Kauft nichts, was nicht im Angebot ist",
			"Nunca compra nada que no esté de rebajas",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Dışarı çıktığınızda cüzdanını her seferinde \"unutur\"",
			"\"Forgets\" their wallet every time you go out",
			"„Vergisst“ jedes Mal die Geldbörse, wenn ihr ausgeht",
			"Siempre se «olvida» la cartera cuando quedáis",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "WORK", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Hiçbir sebep yokken sana kahve ısmarlar",
			"Buys you coffee just because",
			"Lädt dich einfach so auf einen Kaffee ein",
			"Te invita a un café porque sí",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY", "ONLINE"}, Lean: 0,
		Text: [4]string{
			"Bütün birikimini kriptoya yatırır",
			"Puts all their savings into crypto",
			"Steckt das gesamte Ersparte in Kryptowährungen",
			"Mete todos sus ahorros en criptomonedas",
		},
		Description: [4]string{
			"",
			"Sometimes a genius move, usually not.",
			"Manchmal genial, meistens nicht.",
			"",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Daha çok kazandığın için hep senin ödemeni bekler",
			"Expects you to pay because you earn more",
			"Erwartet, dass du zahlst, weil du mehr verdienst",
			"Espera que pagues tú porque ganas más",
		},
		Description: [4]string{
			"Bazı çiftler için adil, bazıları için kırmızı bayrak.",
			"Fair for some couples, a red flag for others.",
			"Für manche Paare fair, für andere ein Warnsignal.",
			"Para algunas parejas es justo; para otras, una bandera roja.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROOMMATE", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Ortak masrafları tatsızlık çıkarmadan adilce paylaşır",
			"Splits shared costs fairly without making it awkward",
			"Teilt gemeinsame Kosten fair, ohne dass es peinlich wird",
			"Reparte los gastos comunes de forma justa y sin tensiones",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"FRIEND", "FAMILY"}, Lean: 1,
		Text: [4]string{
			"Verdiği borcu yıllarca başa kakar",
			"Lends you money and brings it up for years",
			"Leiht dir Geld und erinnert dich noch jahrelang daran",
			"Te presta dinero y te lo recuerda durante años",
		},
		Description: [4]string{
			"",
			"A favor that comes with a lifetime subscription.",
			"Ein Gefallen mit lebenslangem Abo.",
			"Un favor con suscripción de por vida.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Maaşını sevgilisinden bile gizli tutar",
			"Keeps their salary secret even from their partner",
			"Hält das eigene Gehalt sogar in der Beziehung geheim",
			"Oculta su sueldo incluso a su pareja",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Kuryelere cömertçe bahşiş verir",
			"Gives generous tips to delivery drivers",
			"Gibt Lieferfahrern großzügig Trinkgeld",
			"Deja propinas generosas a los repartidores",
		},
		Description: [4]string{
			"Özellikle yağmurlu günlerde.",
			"Especially when it's raining.",
			"Vor allem, wenn es regnet.",
			"Sobre todo cuando llueve.",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY", "ROOMMATE"}, Lean: 1,
		Text: [4]string{
			"Kira parasını kumarda kaybeder",
			"Gambles away the rent money",
			"Verspielt das Geld für die Miete",
			"Se juega el dinero del alquiler",
		},
	},
	{
		Category: "FINANCIAL", Contexts: []string{"ROMANTIC", "FAMILY", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Bütçesini aşan pahalı hediyeler alır",
			"Buys expensive gifts they can't afford",
			"Kauft teure Geschenke, die das Budget sprengen",
			"Hace regalos caros que no se puede permitir",
		},
	},

	// SOCIAL
	{
		Category: "SOCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: -1,
		Text: [4]string{
			"Arkadaşlarının isimlerini tek bir tanışmadan sonra hatırlar",
			"Remembers your friends' names after meeting them once",
			"Merkt sich die Namen deiner Freunde schon nach dem ersten Treffen",
			"Recuerda los nombres de tus amigos después de verlos una sola vez",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "WORK"}, Lean: 1,
		Text: [4]string{
			"Arkadaşlarının arkasından konuşur",
			"Talks badly about friends behind their backs",
			"Lästert hinter dem Rücken über Freunde",
			"Habla mal de sus amigos a sus espaldas",
		},
		Description: [4]string{
			"Onlara yapıyorsa sana da yapıyordur.",
			"If they do it to them, they do it to you.",
			"Wer über andere lästert, lästert auch über dich.",
			"Si lo hace con ellos, también lo hace contigo.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Yakın arkadaşı yok, sadece tanıdıkları var",
			"Has no close friends, only acquaintances",
			"Hat keine engen Freunde, nur Bekannte",
			"No tiene amigos íntimos, solo conocidos",
		},
		Description: [4]string{
			"Nedenini sormaya değer.",
			"Worth asking why.",
			"Es lohnt sich, nach dem Grund zu fragen.",
			"",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "WORK"}, Lean: -1,
		Text: [4]string{
			"Ortama yeni gelen kişiyi de sohbete katar",
			"Includes the new person in the conversation",
			"Bezieht die neue Person ins Gespräch mit ein",
			"Incluye en la conversación a quien acaba de llegar",
		},
		Description: [4]string{
			"O ortamdayken kimse köşede yalnız kalmaz.",
			"Nobody stands alone in the corner when they're around.",
			"Wenn diese Person da ist, steht niemand allein in der Ecke.",
			"Cuando está cerca, nadie se queda solo en un rincón.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Planları her seferinde son dakikada iptal eder",
			"Cancels plans at the last minute, every time",
			"Sagt Treffen jedes Mal in letzter Minute ab",
			"Cancela los planes siempre en el último momento",
		},
		Description: [4]string{
			"Hep uzun bir bahane ve ağlayan bir emojiyle.",
			"Always with a long excuse and a crying emoji.",
			"Immer mit einer langen Ausrede und einem weinenden Emoji.",
			"Siempre con una larga excusa y un emoji llorando.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 0,
		Text: [4]string{
			"Bütün eski sevgilileriyle arkadaştır",
			"Is friends with all their exes",
			"Ist mit allen Ex-Partnern befreundet",
			"Mantiene la amistad con todos sus ex",
		},
		Description: [4]string{
			"Olgunluk mu, yoksa hiç bırakamamanın işareti mi?",
			"Maturity, or a sign they never really let go?",
			"Reife oder ein Zeichen, dass nie wirklich losgelassen wurde?",
			"¿Madurez o señal de que nunca pasó página?",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "WORK", "ROMANTIC"}, Lean: 1,
		Text: [4]string{
			"Her sohbeti dönüp dolaşıp kendine getirir",
			"Steers every conversation back to themselves",
			"Lenkt jedes Gespräch auf sich selbst",
			"Siempre acaba hablando de su propia vida",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Taşınırken yardıma gelir, üstelik koli de getirir",
			"Shows up to help you move, and brings boxes",
			"Hilft dir beim Umzug und bringt sogar Kartons mit",
			"Te ayuda con la mudanza y encima trae cajas",
		},
		Description: [4]string{
			"Dostluğun en nadir hâli.",
			"Friendship in its rarest form.",
			"Freundschaft in ihrer seltensten Form.",
			"La amistad en su forma más rara.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "WORK"}, Lean: 0,
		Text: [4]string{
			"Her partiye gider ama kimseye veda etmeden çıkar",
			"Goes to every party but leaves without saying goodbye",
			"Geht auf jede Party, verschwindet aber ohne Abschied",
			"Acude a todas las fiestas, pero se marcha sin despedirse",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Senin önünde arkadaşlarınla flört eder",
			"Flirts with your friends in front of you",
			"Flirtet vor deinen Augen mit deinen Freunden",
			"Coquetea con tus amigos delante de ti",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "FAMILY", "ONLINE"}, Lean: -1,
		Text: [4]string{
			"Bir süredir sesi çıkmayan arkadaşlarını arayıp hâlini sorar",
			"Checks in on friends who have gone quiet",
			"Meldet sich bei Freunden, die länger nichts von sich hören lassen",
			"Pregunta por los amigos que llevan tiempo sin dar señales",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FAMILY", "ROOMMATE"}, Lean: 0,
		Text: [4]string{
			"Mahallede kimin ne yaptığını bilir",
			"Knows everything that happens in the neighborhood",
			"Weiß über alles Bescheid, was in der Nachbarschaft passiert",
			"Se entera de todo lo que pasa en el barrio",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ONLINE"}, Lean: 1,
		Text: [4]string{
			"Sırlarını grup sohbetinde herkesle paylaşır",
			"Shares your secrets in the group chat",
			"Teilt deine Geheimnisse im Gruppenchat",
			"Cuenta tus secretos en el chat del grupo",
		},
		Description: [4]string{
			"Ekran görüntüleri özürlerden hızlı yayılır.",
			"Screenshots travel faster than apologies.",
			"",
			"Las capturas de pantalla viajan más rápido que las disculpas.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ROMANTIC", "WORK"}, Lean: -1,
		Text: [4]string{
			"Sen yokken bile arkanda durur ve seni savunur",
			"Stands up for you when you're not in the room",
			"Verteidigt dich, auch wenn du nicht dabei bist",
			"Te defiende incluso cuando no estás delante",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ROOMMATE"}, Lean: 1,
		Text: [4]string{
			"Partine davetsiz arkadaşlarını getirir",
			"Brings uninvited friends to your party",
			"Bringt ungefragt Freunde zu deiner Party mit",
			"Se presenta en tu fiesta con amigos que nadie invitó",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Cumartesi akşamı dışarı çıkmak yerine evde kalmayı tercih eder",
			"Would rather stay home than go out on Saturday night",
			"Bleibt am Samstagabend lieber zu Hause, als auszugehen",
			"Prefiere quedarse en casa un sábado por la noche",
		},
		Description: [4]string{
			"Kimine huzur verici, kimine sıkıcı.",
			"Restful to some, boring to others.",
			"Für die einen erholsam, für die anderen langweilig.",
			"Para unos es descanso; para otros, aburrimiento.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"WORK", "FRIEND", "ROMANTIC"}, Lean: -1,
		Text: [4]string{
			"Kime karşı olursa olsun hep aynı insandır",
			"Is the same person with everyone",
			"Ist bei allen derselbe Mensch",
			"Es la misma persona con todo el mundo",
		},
		Description: [4]string{
			"Patrona gösteriş yok, garsona kabalık yok.",
			"No show for the boss, no attitude for the waiter.",
			"Keine Show für den Chef, keine Arroganz gegenüber dem Kellner.",
			"Ni teatro para el jefe ni desprecio para el camarero.",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"ROMANTIC", "FRIEND"}, Lean: 1,
		Text: [4]string{
			"Herkesin içinde seni görmezden gelir, baş başayken tatlıdır",
			"Ignores you in public but is sweet in private",
			"Ignoriert dich in der Öffentlichkeit, ist allein aber total süß",
			"Te ignora en público, pero a solas es un encanto",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "ROMANTIC"}, Lean: 0,
		Text: [4]string{
			"Gittiği her yerde yabancılarla sohbete girer",
			"Talks to strangers everywhere they go",
			"Quatscht überall mit Fremden",
			"Se pone a hablar con desconocidos vaya donde vaya",
		},
		Description: [4]string{
			"",
			"Grocery shopping takes an hour.",
			"Der Wocheneinkauf dauert eine Stunde.",
			"¡Hacer la compra le lleva una hora!",
		},
	},
	{
		Category: "SOCIAL", Contexts: []string{"FRIEND", "FAMILY"}, Lean: -1,
		Text: [4]string{
			"Farklı arkadaş gruplarını aynı sofrada buluşturur",
			"Brings different friend groups together at one table",
			"Bringt verschiedene Freundeskreise an einem Tisch zusammen",
			"Reúne a distintos grupos de amigos en la misma mesa",
		},
	},
}
